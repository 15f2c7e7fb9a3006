-- An operator's change to one product, applied in Redis so every instance follows at once.
--
-- KEYS[1] settings HASH   KEYS[2] active ZSET   KEYS[3] ticket counter
-- ARGV[1] action: 'max' (ARGV[2] = new max-active, '' = back to the route's), 'mode' (ARGV[2] =
--         queue, passthrough, queue-all or closed), 'pause' (= mode queue-all), 'resume' (= mode
--         queue, and no longer draining), 'drain' (admit nobody new, let the active finish),
--         'undrain'
-- ARGV[3] now (epoch ms)
-- Returns users promoted by the change (a raised max-active or a resume fills at once).
local settings = KEYS[1]
local action, value, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
local MODES = { ['queue'] = true, ['passthrough'] = true, ['queue-all'] = true, ['closed'] = true }
if action == 'max' then
    if value == '' then
        redis.call('HDEL', settings, 'max_override')
    else
        redis.call('HSET', settings, 'max_override', value)
    end
elseif action == 'mode' then
    if not MODES[value] then
        return redis.error_reply('unknown mode ' .. tostring(value))
    end
    if value == 'queue' then
        redis.call('HDEL', settings, 'mode')
    else
        redis.call('HSET', settings, 'mode', value)
    end
elseif action == 'pause' then
    redis.call('HSET', settings, 'mode', 'queue-all')
elseif action == 'resume' then
    redis.call('HDEL', settings, 'mode', 'draining')
elseif action == 'drain' then
    redis.call('HSET', settings, 'mode', 'queue-all', 'draining', '1')
elseif action == 'undrain' then
    redis.call('HDEL', settings, 'draining')
else
    return redis.error_reply('unknown action ' .. tostring(action))
end
-- Gateways that remember active users for up to a second forget the whole product ('*') at
-- once: a room that closes must not let anyone through on a remembered pass.
redis.call('PUBLISH', 'qg:released:' .. string.sub(prefix_of(settings), 5, -3), '*')
return math.max(refill(settings, now) or 0, 0)
