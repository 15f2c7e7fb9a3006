-- The first users in line, in order, from the head: for audits, tools and tests. Read-only, so
-- closed tabs are listed until promotion reaches them; before a sale opens, the pre-queue is
-- listed in ticket order, since the draw only applies from the opening on.
--
-- KEYS[1] settings HASH   KEYS[2] active ZSET   KEYS[3] ticket counter
-- ARGV[1] how many at most
-- Returns user ids.
local c = settings_of(KEYS[1])
return peek(prefix_of(KEYS[1]), c, tonumber(ARGV[1]))
