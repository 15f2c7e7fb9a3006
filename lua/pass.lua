--!include codes.lua
--!include keys.lua
-- Confirms the passes of admitted shoppers whose pass ran out in an instance's active cache: each
-- still holds their session, in the data the gateway checked when it connected, and the room lets
-- admitted shoppers through. A shopper who browses while admitted is checked about once a second
-- on every instance that serves them, so one call carries every check an instance gathered for
-- the product meanwhile (group commit), and it reads two keys and writes nothing, where a join
-- call pays for the product's rules, its key expiry and the whole decision. Whoever it does not
-- confirm gets 0, and the gateway then takes the long way (join.lua), which decides, recovers and
-- reclaims.
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id   2 now (epoch ms)   3... the user ids
-- Reply ends: one number a user, in the order given: the session's end (epoch ms) when confirmed,
--       else 0
local k = script_keys()
local now = tonumber(ARGV[2])
local ends = {}
local epoch, mode = unpack(redis.call('HMGET', k.settings, 'epoch', 'mode'))
-- Another epoch's state, or none: what fill.lua's stale judges, the long way's to recover.
if epoch ~= k.epoch or mode == MODE.CLOSED then
    for i = 3, #ARGV do
        ends[i - 2] = 0
    end
    return { 'ends', ends }
end
local scores = redis.call('ZMSCORE', k.active, unpack(ARGV, 3))
for i = 1, #ARGV - 2 do
    local expiry = tonumber(scores[i])
    ends[i] = (expiry and expiry > now) and expiry or 0
end
return { 'ends', ends }
