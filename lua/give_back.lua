--!include keys.lua
-- Gives back a completion claim (fill.lua's claim_completion) when the shop answered the request
-- that took it with a failure, so the shopper may try again in the same session. Only the request
-- that holds the claim can give it back: a late release never removes a newer claim.
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id   2 user id   3 the claim's id
-- Reply released (1 when the claim was this request's and is gone, else 0)
local k = script_keys()
local key = k:completing(ARGV[2])
local held = redis.call('GET', key)
local mine = ':' .. ARGV[3]
if held and string.sub(held, -#mine) == mine then
    redis.call('DEL', key)
    return { 'released', 1 }
end
return { 'released', 0 }
