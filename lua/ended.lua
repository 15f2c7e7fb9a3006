--!include keys.lua
-- The places and sessions of one product that ended lately (leave.lua's record), for a gateway that
-- starts or has seen Redis forget: it keeps them, so that after a loss no token signed before an end
-- brings that place or session back, whichever instance heard the end (recover.lua's 'ended').
-- Reads only; state of another epoch is read too (its ends are no less true).
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id
-- Reply user ids and when each ended (epoch ms), alternating, the latest first, at most 100,000
-- (leave.lua keeps only those a token signed before them may still be shown for)
local k = script_keys()
return redis.call('ZREVRANGE', k.ended, 0, 99999, 'WITHSCORES')
