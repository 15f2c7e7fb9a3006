-- One promotion pass for one product, as run by the scheduler, the safety net and the
-- slot-available listeners. Reads the product's settings as the last join stored them.
--
-- KEYS[1] settings HASH   KEYS[2] active ZSET   KEYS[3] ticket counter
-- ARGV[1] now (epoch ms)   ARGV[2] only for this strategy ('' = any)
-- Returns users moved; 0 = no free place; -1 = nobody waits (the caller may forget the
-- product); -2 = the product uses another strategy (skipped).
local settings = KEYS[1]
local now = tonumber(ARGV[1])
local c = settings_of(settings)
if not c.max then
    return -1
end
if ARGV[2] ~= '' and c.strategy ~= ARGV[2] then
    return -2
end
return fill(prefix_of(settings), settings, now, c)
