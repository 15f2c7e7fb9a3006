--!include fill.lua
-- The first users in line, in order, from the head (the invited line's first): for audits, tools
-- and tests. Read-only, so closed tabs are listed until promotion reaches them; before a sale
-- opens, the pre-queue is listed in ticket order, since the draw only applies from the opening on.
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id   2 how many at most
-- Reply the user ids, in order (a plain list)
local k = script_keys()
local c = settings_of(k)
local limit = tonumber(ARGV[2])
-- The invited line (invites: priority) is ahead of the main one.
local users = {}
if c.invited then
    local ki, ci = invited_line(k, c)
    users = peek(ki, ci, limit)
end
for _, uid in ipairs(peek(k, c, limit - #users)) do
    users[#users + 1] = uid
end
return users
