-- One product's queue as operators see it (the queues endpoint and the gauges), read in one
-- step so the numbers belong together. Never changes anything.
--
-- KEYS[1] settings HASH   KEYS[2] active ZSET   KEYS[3] ticket counter
-- ARGV[1] now (epoch ms)
-- Returns {waiting, active, max, max_override, paused, draining, rate, known, mode, opens,
-- opened, seed, prequeued, draw_from}: active counts only unexpired sessions; max is as the last
-- join stored it and max_override the operator's (-1 when unset); paused (mode queue-all) and
-- draining 1 or 0; rate = admissions per second x 10^6; known = 1 when the product has any
-- state in Redis; mode 0 queue, 1 passthrough, 2 queue-all, 3 closed; opens and opened the
-- sale's opens-at and the opens-at it last opened (epoch ms, -1 when none); the seed of the last
-- draw (-1 when none, and until its sale has opened: nobody may know it before), how many
-- tickets it placed and the first of them.
local settings, active = KEYS[1], KEYS[2]
local prefix = prefix_of(settings)
local now = tonumber(ARGV[1])
local MODES = { ['passthrough'] = 1, ['queue-all'] = 2, ['closed'] = 3 }
local c = settings_of(settings)
local waiting = line_length(prefix, c)
local admitted = redis.call('ZCOUNT', active, '(' .. now, '+inf')
local known = 0
if waiting > 0 or admitted > 0 or redis.call('EXISTS', settings) == 1 then
    known = 1
end
local mode = MODES[c.mode] or 0
-- A draw is closed, and its seed may be shown, from its opening until the next draw begins.
local revealed = c.draw_to
return {waiting, admitted, tonumber(c.max) or -1, tonumber(c.max_override) or -1,
    mode == 2 and 1 or 0, c.draining == '1' and 1 or 0,
    math.floor(admission_rate(c, now) * 1000000), known, mode,
    tonumber(c.opens) or -1, tonumber(c.opened) or -1, revealed and tonumber(c.seed) or -1,
    revealed and (tonumber(c.draw_to) - tonumber(c.draw_from) + 1) or 0, revealed and tonumber(c.draw_from) or -1}
