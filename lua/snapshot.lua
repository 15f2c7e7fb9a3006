-- One product's queue as operators see it (the queues endpoint and the gauges), read in one
-- step so the numbers belong together. Never changes anything.
--
-- KEYS[1] wait ZSET   KEYS[2] active ZSET   KEYS[3] settings HASH
-- ARGV[1] now (epoch ms)
-- Returns {waiting, active, max, max_override, paused, draining, rate, known, mode, opens,
-- opened, seed, prequeued}: active counts only unexpired sessions; max is as the last join
-- stored it and max_override the operator's (-1 when unset); paused (mode queue-all)/draining
-- 1 or 0; rate = admissions per second x 10^6; known = 1 when the product has any state in
-- Redis; mode 0 queue, 1 passthrough, 2 queue-all, 3 closed; opens/opened the sale's opens-at
-- and the opens-at it last opened (epoch ms, -1 when none); the seed of that opening's draw
-- (-1 when none, and until the sale has opened: nobody may know it before) and how many it placed.
local wait, active, settings = KEYS[1], KEYS[2], KEYS[3]
local now = tonumber(ARGV[1])
local MODES = { ['passthrough'] = 1, ['queue-all'] = 2, ['closed'] = 3 }
local conf = redis.call('HMGET', settings, 'max', 'max_override', 'mode', 'draining', 'opens', 'opened', 'seed',
    'prequeued', 'seed_for')
local waiting = redis.call('ZCARD', wait)
local admitted = redis.call('ZCOUNT', active, '(' .. now, '+inf')
local known = 0
if waiting > 0 or admitted > 0 or redis.call('EXISTS', settings) == 1 then
    known = 1
end
local mode = MODES[conf[3]] or 0
local revealed = conf[6] and conf[6] == conf[9]
return {waiting, admitted, tonumber(conf[1]) or -1, tonumber(conf[2]) or -1,
    mode == 2 and 1 or 0, conf[4] == '1' and 1 or 0,
    math.floor(admission_rate(settings, now) * 1000000), known, mode,
    tonumber(conf[5]) or -1, tonumber(conf[6]) or -1, revealed and tonumber(conf[7]) or -1, tonumber(conf[8]) or 0}
