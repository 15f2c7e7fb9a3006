-- An operator's change to one product, applied in Redis so every instance follows at once.
--
-- KEYS[1] wait ZSET   KEYS[2] active ZSET   KEYS[3] settings HASH
-- ARGV[1] action: 'max' (ARGV[2] = new max-active, '' = back to the route's), 'pause',
--         'resume', 'drain' (admit nobody new, let the active finish), 'undrain'
-- ARGV[3] now (epoch ms)
-- Returns users promoted by the change (a raised max-active or a resume fills at once).
local wait, active, settings = KEYS[1], KEYS[2], KEYS[3]
local action, value, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
if action == 'max' then
    if value == '' then
        redis.call('HDEL', settings, 'max_override')
    else
        redis.call('HSET', settings, 'max_override', value)
    end
elseif action == 'pause' then
    redis.call('HSET', settings, 'paused', '1')
elseif action == 'resume' then
    redis.call('HDEL', settings, 'paused', 'draining')
elseif action == 'drain' then
    redis.call('HSET', settings, 'paused', '1', 'draining', '1')
elseif action == 'undrain' then
    redis.call('HDEL', settings, 'draining')
else
    return redis.error_reply('unknown action ' .. tostring(action))
end
return math.max(refill(wait, active, settings, now) or 0, 0)
