-- One product's queue as operators see it (the queues endpoint and the gauges), read in one
-- step so the numbers belong together. Never changes anything.
--
-- KEYS[1] wait ZSET   KEYS[2] active ZSET   KEYS[3] settings HASH
-- ARGV[1] now (epoch ms)
-- Returns {waiting, active, max, max_override, paused, draining, rate, known}: active counts
-- only unexpired sessions; max is as the last join stored it and max_override the operator's
-- (-1 when unset); paused/draining 1 or 0; rate = admissions per second x 10^6; known = 1 when
-- the product has any state in Redis.
local wait, active, settings = KEYS[1], KEYS[2], KEYS[3]
local now = tonumber(ARGV[1])
local conf = redis.call('HMGET', settings, 'max', 'max_override', 'paused', 'draining')
local waiting = redis.call('ZCARD', wait)
local admitted = redis.call('ZCOUNT', active, '(' .. now, '+inf')
local known = 0
if waiting > 0 or admitted > 0 or redis.call('EXISTS', settings) == 1 then
    known = 1
end
return {waiting, admitted, tonumber(conf[1]) or -1, tonumber(conf[2]) or -1,
    conf[3] == '1' and 1 or 0, conf[4] == '1' and 1 or 0,
    math.floor(admission_rate(settings, now) * 1000000), known}
