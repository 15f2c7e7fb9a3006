-- Ends a user's place, waiting or active: a completed purchase or an explicit leave. The freed
-- place is refilled in the same call; products on pub/sub also announce it so every instance
-- (and anything else listening) hears that a place opened.
--
-- KEYS[1] wait ZSET   KEYS[2] active ZSET   KEYS[3] settings HASH
-- ARGV[1] user id   ARGV[2] now (epoch ms)   ARGV[3] slot-available channel
-- Returns {removed, promoted}: removed 1 when the user held a place, else 0.
local wait, active, settings = KEYS[1], KEYS[2], KEYS[3]
local uid, now = ARGV[1], tonumber(ARGV[2])
local removed = redis.call('ZREM', active, uid) + redis.call('ZREM', wait, uid)
local conf = redis.call('HMGET', settings, 'max', 'ttl', 'strategy')
local promoted = 0
if conf[1] then
    promoted = fill(wait, active, now, tonumber(conf[1]), tonumber(conf[2]))
    if removed > 0 and conf[3] == 'pubsub' then
        redis.call('PUBLISH', ARGV[3], uid)
    end
end
return {removed, promoted}
