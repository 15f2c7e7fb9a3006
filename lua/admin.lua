--!include fill.lua
-- An operator's change to one product, applied in Redis so every instance follows at once.
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id   2 action (ACTION): 'max' (3 = new max-active, '' = back to the route's),
--       'mode' (3 = a MODE), 'pause' (= mode queue-all), 'resume' (= mode queue, and no longer
--       draining), 'drain' (admit nobody new, let the active finish), 'undrain'
--       4 now (epoch ms)
-- Reply promoted (users admitted by the change: a raised max-active or a resume fills at once),
--       abandoned (users dropped as not seen lately on the way);
--       {'recover', 1} instead, changing nothing, when the product must be recovered first
local k = script_keys()
local action, value, now = ARGV[2], ARGV[3], tonumber(ARGV[4])
if stale(k, settings_of(k)) then
    return RECOVER
end
local modes = {}
for _, mode in pairs(MODE) do
    modes[mode] = true
end
if action == ACTION.MAX then
    if value == '' then
        redis.call('HDEL', k.settings, 'max_override')
    else
        redis.call('HSET', k.settings, 'max_override', value)
    end
elseif action == ACTION.MODE then
    if not modes[value] then
        return redis.error_reply('unknown mode ' .. tostring(value))
    end
    if value == MODE.QUEUE then
        redis.call('HDEL', k.settings, 'mode')
    else
        redis.call('HSET', k.settings, 'mode', value)
    end
elseif action == ACTION.PAUSE then
    redis.call('HSET', k.settings, 'mode', MODE.QUEUE_ALL)
elseif action == ACTION.RESUME then
    redis.call('HDEL', k.settings, 'mode', 'draining')
elseif action == ACTION.DRAIN then
    redis.call('HSET', k.settings, 'mode', MODE.QUEUE_ALL, 'draining', '1')
elseif action == ACTION.UNDRAIN then
    redis.call('HDEL', k.settings, 'draining')
else
    return redis.error_reply('unknown action ' .. tostring(action))
end
-- Gateways that remember active users for up to a second forget the whole product ('*') at
-- once: a room that closes must not let anyone through on a remembered pass.
redis.call('PUBLISH', k.released, '*')
local c = settings_of(k)
local promoted = 0
if c.max then
    promoted = fill(k, now, c)
end
return { 'promoted', promoted, 'abandoned', abandoned }
