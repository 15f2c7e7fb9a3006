-- Handles Redis's expiry event of one slot key ({promotion: keyspace}). Every gateway instance
-- receives every event and runs this; only the first finds the user still in the active set, so
-- the place is counted free exactly once and exactly that many users are promoted: with N
-- instances a plain counter would be decremented N times; the active set's own membership is the
-- once-only marker.
--
-- KEYS[1] settings HASH   KEYS[2] active ZSET   KEYS[3] ticket counter
-- ARGV[1] user id of the expired slot   ARGV[2] now (epoch ms)
-- Returns users promoted; -3 when the user holds a newer session (a fresh slot key exists);
-- -4 when the expiry was already handled (or the user left).
local settings, active = KEYS[1], KEYS[2]
local uid, now = ARGV[1], tonumber(ARGV[2])
if redis.call('EXISTS', prefix_of(settings) .. 'slot:' .. uid) == 1 then
    return -3
end
if redis.call('ZREM', active, uid) == 0 then
    return -4
end
return math.max(refill(settings, now) or 0, 0)
