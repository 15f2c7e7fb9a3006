--!include fill.lua
-- One product's queue as operators see it (the queues endpoint and the gauges), read in one step
-- so the numbers belong together. Never changes anything.
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id   2 now (epoch ms)
-- Reply waiting (in both lines), active (unexpired sessions only), max (as the last join stored
--       it, -1 when unknown), max_override (the operator's, -1 when unset), mode (MODE), draining (1 or 0),
--       rate (admissions per second x 10^6), known (1 when the product has any state), opens and
--       opened (the sale's opens-at and the opens-at it last opened, epoch ms, -1 when none),
--       seed (the last draw's seed, '' when none and until its sale has opened: nobody may know
--       it before), prequeued (how many tickets it placed), draw_from (the first of them, -1),
--       commitment (the commitment to the last draw's seed, shown from the draw's first ticket
--       on; '' when none), abandoned (users dropped from the line as not seen lately, in total
--       since the product's state was made), stock (units left, -1 while unknown), units
--       (units-per-shopper), stock_src ('shop', 'set', '' while unknown), sold_out_at (epoch ms,
--       -1 unless sold out)
local k = script_keys()
local now = tonumber(ARGV[2])
local c = settings_of(k)
local waiting = waiting_count(k, c)
local admitted = redis.call('ZCOUNT', k.active, '(' .. now, '+inf')
local known = 0
if waiting > 0 or admitted > 0 or redis.call('EXISTS', k.settings) == 1 then
    known = 1
end
-- A draw is closed, and its seed may be shown, from its opening until the next draw begins.
local revealed = c.draw_to and true or false
return { 'waiting', waiting, 'active', admitted, 'max', tonumber(rule(c, 'max-active')) or -1,
    'max_override', tonumber(c.max_override) or -1, 'mode', c.mode or MODE.QUEUE,
    'draining', c.draining == '1' and 1 or 0, 'rate', rate_reply(c, now), 'known', known,
    'opens', tonumber(rule(c, 'opens-at')) or -1, 'opened', tonumber(c.opened) or -1,
    'seed', revealed and c.seed or '',
    'prequeued', revealed and (tonumber(c.draw_to) - tonumber(c.draw_from) + 1) or 0,
    'draw_from', revealed and tonumber(c.draw_from) or -1, 'commitment', commitment_of(c),
    'abandoned', tonumber(c.abandoned) or 0, 'stock', stock_reply(c), 'units', units_of(c),
    'stock_src', c.stock_src or '', 'sold_out_at', tonumber(c.sold_out_at) or -1 }
