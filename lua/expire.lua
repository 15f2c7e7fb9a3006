--!include fill.lua
-- Handles Redis's expiry event of one slot key (promotion: keyspace). Every gateway instance
-- receives every event and runs this; only the first finds the user still in the active set, so
-- the place is counted free exactly once and exactly that many users are promoted. A counter
-- decremented per event would free N places for one expiry with N instances; the active set's own
-- membership is the once-only marker instead.
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id   2 user id of the expired slot   3 now (epoch ms)
-- Reply outcome (EXPIRY), promoted (users admitted into the freed place), abandoned (users dropped
--       as not seen lately on the way to it)
local k = script_keys()
local uid, now = ARGV[2], tonumber(ARGV[3])
if redis.call('EXISTS', k:slot(uid)) == 1 then
    return { 'outcome', EXPIRY.NEWER_SESSION, 'promoted', 0, 'abandoned', 0 }
end
if redis.call('ZREM', k.active, uid) == 0 then
    return { 'outcome', EXPIRY.HANDLED, 'promoted', 0, 'abandoned', 0 }
end
local c = settings_of(k)
local promoted = 0
if rule(c, 'max-active') and not stale(k, c) then
    promoted = fill(k, now, c)
end
return { 'outcome', EXPIRY.EXPIRED, 'promoted', promoted, 'abandoned', abandoned_this_call() }
