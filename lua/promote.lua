--!include fill.lua
-- One promotion pass for one product, as run by the scheduler's timed passes and the
-- slot-available listeners. Reads the product's settings as the last join stored them.
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id   2 now (epoch ms)   3 only for this strategy ('' = any)
-- Reply outcome (PROMOTION), moved (users admitted), abandoned (users dropped as not seen lately)
local k = script_keys()
local now = tonumber(ARGV[2])
local c = settings_of(k)
-- Nobody is admitted into a product whose state is not yet recovered (fill.lua's stale): its
-- sessions may not all be back.
if not rule(c, 'max-active') or stale(k, c) then
    return { 'outcome', PROMOTION.EMPTY, 'moved', 0, 'abandoned', 0 }
end
if ARGV[3] ~= '' and rule(c, 'promotion') ~= ARGV[3] then
    return { 'outcome', PROMOTION.SKIPPED, 'moved', 0, 'abandoned', 0 }
end
local moved, outcome = fill(k, now, c)
return { 'outcome', outcome, 'moved', moved, 'abandoned', abandoned_this_call() }
