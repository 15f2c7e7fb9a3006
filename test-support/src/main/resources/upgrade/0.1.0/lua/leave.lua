-- Ends a user's place, waiting or active: a completed purchase or an explicit leave. The freed
-- place is refilled in the same call. Products on pub/sub also announce it, so every instance
-- (and anything else listening) hears that a place opened; products on stream promotion are told
-- to the caller, which appends the event to the shared stream (a key of another slot).
--
-- KEYS[1] settings HASH   KEYS[2] active ZSET   KEYS[3] ticket counter
-- ARGV[1] user id   ARGV[2] now (epoch ms)   ARGV[3] slot-available channel
-- Returns {removed, promoted, stream}: removed 1 when the user held a place, else 0; stream 1
-- when the product's slot-free event should go to the stream.
local settings, active = KEYS[1], KEYS[2]
local prefix = prefix_of(settings)
local uid, now = ARGV[1], tonumber(ARGV[2])
local c = settings_of(settings)
local removed = redis.call('ZREM', active, uid) + give_up(prefix, uid, c)
redis.call('ZREM', prefix .. 'arriving', uid)
-- A deleted slot key raises no expiry event, so a leave never counts twice.
redis.call('DEL', prefix .. 'slot:' .. uid)
if removed > 0 then
    -- Gateways that remember active users for up to a second forget this one at once.
    redis.call('PUBLISH', 'qg:released:' .. string.sub(prefix, 5, -3), uid)
end
local promoted = 0
if c.max then
    promoted = fill(prefix, settings, now, c)
end
local stream = 0
if removed > 0 and c.strategy == 'pubsub' then
    redis.call('PUBLISH', ARGV[3], uid)
end
if removed > 0 and c.strategy == 'stream' then
    stream = 1
end
return {removed, promoted, stream}
