--!include fill.lua
-- One safety-net promotion for one product taken from the index of due products ('qg:due'),
-- which lives in another hash slot: this script cannot touch it, so it tells the caller when the
-- product is next due, and the caller writes that back (reschedule.lua).
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id   2 now (epoch ms)   3 only for this strategy ('' = any)
-- Reply outcome (PROMOTION), moved (users admitted), next (when the product is next due, epoch
--       ms; -1 = not until a new event; -2 = unchanged, when skipped), timed (1 when its
--       promotion runs on a clock of its own, so an instance that never saw it joined learns to
--       keep that clock), abandoned (users dropped as not seen lately)
local k = script_keys()
local now = tonumber(ARGV[2])
local c = settings_of(k)
-- Nobody is admitted into a product whose state is not yet recovered (fill.lua's stale); its
-- first request after the loss recovers it and marks it due again.
if not rule(c, 'max-active') or stale(k, c) then
    return { 'outcome', PROMOTION.EMPTY, 'moved', 0, 'next', -1, 'timed', 0, 'abandoned', 0 }
end
if ARGV[3] ~= '' and rule(c, 'promotion') ~= ARGV[3] then
    return { 'outcome', PROMOTION.SKIPPED, 'moved', 0, 'next', -2, 'timed', 0, 'abandoned', 0 }
end
local moved, outcome = fill(k, now, c)
return { 'outcome', outcome, 'moved', moved, 'next', next_due(k, now, c), 'timed', is_timed(c),
    'abandoned', abandoned_this_call() }
