--!include fill.lua
-- Ends a user's place, waiting or active: a completed purchase or an explicit leave. The freed
-- place is refilled in the same call. Products on pub/sub also announce it, so every instance
-- (and anything else listening) hears that a place opened; products on stream promotion are told
-- to the caller, which appends the event to the shared stream (a key of another slot).
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id   2 user id   3 now (epoch ms)
-- Reply held (1 when the user held a place), promoted (users admitted into the freed place),
--       stream (1 when the product's slot-free event should go to the stream); {'recover', 1}
--       instead when the product must be recovered first (fill.lua's stale)
local k = script_keys()
local uid, now = ARGV[2], tonumber(ARGV[3])
local c = settings_of(k)
if stale(k, c) then
    return RECOVER
end
local held = redis.call('ZREM', k.active, uid) + give_up(k, uid, c)
redis.call('ZREM', k.arriving, uid)
-- A deleted slot key raises no expiry event, so a leave never counts twice. A completion claim
-- ends with the session it was for.
redis.call('DEL', k:slot(uid), k:completing(uid))
if held > 0 then
    -- Gateways that remember active users for up to a second forget this one at once.
    redis.call('PUBLISH', k.released, uid)
end
local promoted = 0
if c.max then
    promoted = fill(k, now, c)
end
local stream = 0
if held > 0 and c.strategy == 'pubsub' then
    redis.call('PUBLISH', k.slot_available, uid)
end
if held > 0 and c.strategy == 'stream' then
    stream = 1
end
return { 'held', held > 0 and 1 or 0, 'promoted', promoted, 'stream', stream }
