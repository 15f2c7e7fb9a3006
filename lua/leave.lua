-- Ends a user's place, waiting or active: a completed purchase or an explicit leave. The freed
-- place is refilled in the same call. Products on pub/sub also announce it, so every instance
-- (and anything else listening) hears that a place opened; products on stream promotion are told
-- to the caller, which appends the event to the shared stream (a key of another slot).
--
-- KEYS[1] wait ZSET   KEYS[2] active ZSET   KEYS[3] settings HASH
-- ARGV[1] user id   ARGV[2] now (epoch ms)   ARGV[3] slot-available channel
-- Returns {removed, promoted, stream}: removed 1 when the user held a place, else 0; stream 1
-- when the product's slot-free event should go to the stream.
local wait, active, settings = KEYS[1], KEYS[2], KEYS[3]
local uid, now = ARGV[1], tonumber(ARGV[2])
local removed = redis.call('ZREM', active, uid) + redis.call('ZREM', wait, uid)
redis.call('ZREM', prefix_of(active) .. 'seen', uid)
redis.call('ZREM', prefix_of(active) .. 'arriving', uid)
-- A deleted slot key raises no expiry event, so a leave never counts twice.
redis.call('DEL', string.sub(active, 1, -7) .. 'slot:' .. uid)
if removed > 0 then
    -- Gateways that remember active users for up to a second forget this one at once.
    redis.call('PUBLISH', 'qg:released:' .. string.sub(active, 5, -9), uid)
end
local promoted, strategy = refill(wait, active, settings, now)
local stream = 0
if removed > 0 and strategy == 'pubsub' then
    redis.call('PUBLISH', ARGV[3], uid)
end
if removed > 0 and strategy == 'stream' then
    stream = 1
end
promoted = promoted or 0
return {removed, promoted, stream}
