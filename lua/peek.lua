--!include fill.lua
-- The first users in line, in order, from the head: for audits, tools and tests. Read-only, so
-- closed tabs are listed until promotion reaches them; before a sale opens, the pre-queue is
-- listed in ticket order, since the draw only applies from the opening on.
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id   2 how many at most
-- Reply the user ids, in order (a plain list)
local k = script_keys()
return peek(k, settings_of(k), tonumber(ARGV[2]))
