--!include fill.lua
-- The shop's Queue-Stock header on an answer that completes nothing (a product page, a cart): the
-- units left, up or down, unless the request it answers was forwarded before the stock's last
-- change (fill.lua's set_stock), so answers that overtake each other never undo a newer word. A
-- raise fills the places it frees in the same call; lowering never frees a place. A product Redis
-- holds nothing of is left alone (its next join starts it).
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id   2 units left (a whole number)   3 now (epoch ms)   4 when the request the
--       answer is for was forwarded (epoch ms, the gateway's clock)
-- Reply stock (units left after the call, -1 when the product has no state), changed (1 when
--       the call changed it), sold_out (1 when the call sold the product out), promoted (users
--       admitted into the places a raise freed), abandoned (users dropped as not seen lately on
--       the way);
--       {'recover', 1} instead when the product must be recovered first (fill.lua's stale)
local k = script_keys()
local value, now, said_at = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if not value or value < 0 then
    error('a stock is a whole number of units, not ' .. tostring(ARGV[2]))
end
local c = settings_of(k)
if stale(k, c) then
    return RECOVER
end
if not rule(c, 'max-active') then
    return { 'stock', -1, 'changed', 0, 'sold_out', 0, 'promoted', 0, 'abandoned', 0 }
end
local was_sold_out = sold_out(c)
local before = tonumber(c.stock)
local changed = set_stock(k, c, value, 'shop', now, said_at or now)
local promoted = 0
if changed and before and value > before then
    promoted = fill(k, now, c)
end
return { 'stock', stock_reply(c), 'changed', changed and 1 or 0,
    'sold_out', (sold_out(c) and not was_sold_out) and 1 or 0, 'promoted', promoted, 'abandoned', abandoned_this_call() }
