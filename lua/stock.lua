--!include fill.lua
-- The shop's Queue-Stock header on an answer that completes nothing (a product page, a cart): the
-- units left, believed only when lower than what is stored (fill.lua's set_stock), so answers that
-- overtake each other never raise it. Lowering never frees a place: nothing is promoted. A product
-- Redis holds nothing of is left alone (its next join starts it).
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id   2 units left (a whole number)   3 now (epoch ms)
-- Reply stock (units left after the call, -1 when the product has no state), changed (1 when
--       the call lowered it), sold_out (1 when the call sold the product out);
--       {'recover', 1} instead when the product must be recovered first (fill.lua's stale)
local k = script_keys()
local value, now = tonumber(ARGV[2]), tonumber(ARGV[3])
if not value or value < 0 then
    error('a stock is a whole number of units, not ' .. tostring(ARGV[2]))
end
local c = settings_of(k)
if stale(k, c) then
    return RECOVER
end
if not c.max then
    return { 'stock', -1, 'changed', 0, 'sold_out', 0 }
end
local was_sold_out = sold_out(c)
local changed = set_stock(k, c, value, 'shop', now)
return { 'stock', stock_reply(c), 'changed', changed and 1 or 0,
    'sold_out', (sold_out(c) and not was_sold_out) and 1 or 0 }
