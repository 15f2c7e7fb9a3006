--!include line.lua
-- Marks users seen who asked a gateway instance about their place in the last moments, in one
-- call: the instance answered those polls and live-stream heartbeats from its own view of the
-- line (view.lua), without Redis, and writes what abandon-after needs in batches, at most every
-- 250 ms per product. Being heard also keeps the product's outage detection ('heard_at') awake.
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id   2 now (epoch ms)   3 onwards, the tickets of the users seen (whole numbers
--       written plainly; negative in the invited line)
-- Reply marked (how many tickets were marked)
local k = script_keys()
local now = tonumber(ARGV[2])
-- abandon-after is read by its rule's field, and by the previous release's (rules.lua) while that is absent.
local values = redis.call('HMGET', k.settings, rule_field('abandon-after'), 'heard_at', 'seen_since', 'seen_ttl',
    'invited_seen_ttl', 'epoch', 'abandon')
local abandon = values[1] or values[7]
if not abandon or values[6] ~= k.epoch then
    -- The product's keys are gone (nobody came for the idle ttl), or belong to another epoch: marks
    -- of tickets of before a loss wait for the product's recovery, which gives everyone in line a
    -- whole abandon-after anyway.
    return { 'marked', 0 }
end
local c = { [rule_field('abandon-after')] = abandon, heard_at = values[2], seen_since = values[3],
    seen_ttl = values[4], invited_seen_ttl = values[5] }
local changes = {}
heard(now, c, changes)
local main, invited = {}, {}
for i = 3, #ARGV do
    local ticket = ARGV[i]
    if string.sub(ticket, 1, 1) == '-' then
        invited[#invited + 1] = string.sub(ticket, 2)
    else
        main[#main + 1] = ticket
    end
end
local marked = stamp_seen_all(k, main, now, c, changes)
if #invited > 0 then
    local ki, ci = invited_line(k, c)
    marked = marked + stamp_seen_all(ki, invited, now, ci, changes)
end
if #changes > 0 then
    redis.call('HSET', k.settings, unpack(changes))
end
return { 'marked', marked }
