-- One safety-net promotion for one product taken from the index of due products ('qg:due'),
-- which lives in another hash slot: this script cannot touch it, so it tells the caller when the
-- product is next due, and the caller writes that back (reschedule.lua).
--
-- KEYS[1] settings HASH   KEYS[2] active ZSET   KEYS[3] ticket counter
-- ARGV[1] now (epoch ms)   ARGV[2] only for this strategy ('' = any)
-- Returns {moved, next, timed}: moved as promote.lua (-1 nobody waits, -2 another strategy:
-- skipped); next = when the product is next due (epoch ms), -1 = not until a new event, -2 =
-- unchanged (skipped); timed = 1 when its promotion runs on a clock of its own (opens-at or
-- max-admit-per-minute), so an instance that never saw it joined learns to keep that clock.
local settings = KEYS[1]
local prefix = prefix_of(settings)
local now = tonumber(ARGV[1])
local c = settings_of(settings)
if not c.max then
    return {-1, -1, 0}
end
if ARGV[2] ~= '' and c.strategy ~= ARGV[2] then
    return {-2, -2, 0}
end
local moved = fill(prefix, settings, now, c)
local timed = (c.opens or (tonumber(c.apm) or 0) > 0) and 1 or 0
return {moved, next_due(prefix, now, c), timed}
