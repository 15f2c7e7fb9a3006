--!include line.lua
-- Marks users seen who asked a gateway instance about their place in the last moments, in one
-- call: the instance answered those polls and live-stream heartbeats from its own view of the
-- line (view.lua), without Redis, and writes what abandon-after needs in batches, at most every
-- 250 ms per product. Being heard also keeps the product's outage detection ('heard_at') awake.
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id   2 now (epoch ms)   3 onwards, the tickets of the users seen (whole numbers
--       written plainly)
-- Reply marked (how many tickets were marked)
local k = script_keys()
local now = tonumber(ARGV[2])
local values = redis.call('HMGET', k.settings, 'abandon', 'heard_at', 'seen_since', 'seen_ttl')
if not values[1] then
    -- The product's keys are gone (nobody came for the idle ttl): nothing to keep.
    return { 'marked', 0 }
end
local c = { abandon = values[1], heard_at = values[2], seen_since = values[3], seen_ttl = values[4] }
local changes = {}
heard(now, c, changes)
local marked = stamp_seen_all(k, { unpack(ARGV, 3) }, now, c, changes)
if #changes > 0 then
    redis.call('HSET', k.settings, unpack(changes))
end
return { 'marked', marked }
