-- One safety-net promotion for one product taken from the index of due products ('qg:due'),
-- which lives in another hash slot: this script cannot touch it, so it tells the caller when the
-- product is next due, and the caller writes that back (reschedule.lua).
--
-- KEYS[1] wait ZSET   KEYS[2] active ZSET   KEYS[3] settings HASH
-- ARGV[1] now (epoch ms)   ARGV[2] only for this strategy ('' = any)
-- Returns {moved, next}: moved as promote.lua (-1 nobody waits, -2 another strategy: skipped);
-- next = when the product is next due (epoch ms), -1 = not until a new event, -2 = unchanged
-- (skipped).
local wait, active, settings = KEYS[1], KEYS[2], KEYS[3]
local now = tonumber(ARGV[1])
local c = settings_of(settings)
if not c.max then
    return {-1, -1}
end
if ARGV[2] ~= '' and c.strategy ~= ARGV[2] then
    return {-2, -2}
end
local moved = fill(wait, active, settings, now, c)
return {moved, next_due(wait, active, settings, now, c)}
