--!include fill.lua
-- An operator's change to one product, applied in Redis so every instance follows at once.
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id   2 action (ACTION): 'max' (3 = new max-active, '' = back to the route's),
--       'mode' (3 = a MODE), 'pause' (= mode queue-all), 'resume' (= mode queue, and no longer
--       draining), 'drain' (admit nobody new, let the active finish), 'undrain', 'stock' (3 = the
--       units left, raising or lowering it: a restock reopens a sold-out line in its order; '' =
--       unknown again, max-active alone caps it)
--       4 now (epoch ms)
-- Reply promoted (users admitted by the change: a raised max-active, a resume or a restock fills
--       at once), abandoned (users dropped as not seen lately on the way), stock (units left, -1
--       while unknown), sold_out (1 when the change sold the product out);
--       {'recover', 1} instead, changing nothing, when the product must be recovered first
local k = script_keys()
local action, value, now = ARGV[2], ARGV[3], tonumber(ARGV[4])
local before = settings_of(k)
if stale(k, before) then
    return RECOVER
end
local was_sold_out = sold_out(before)
local modes = {}
for _, mode in pairs(MODE) do
    modes[mode] = true
end
if action == ACTION.MAX then
    if value == '' then
        redis.call('HDEL', k.settings, 'max_override')
    else
        redis.call('HSET', k.settings, 'max_override', value)
    end
elseif action == ACTION.MODE then
    if not modes[value] then
        return redis.error_reply('unknown mode ' .. tostring(value))
    end
    if value == MODE.QUEUE then
        redis.call('HDEL', k.settings, 'mode')
    else
        redis.call('HSET', k.settings, 'mode', value)
    end
elseif action == ACTION.PAUSE then
    redis.call('HSET', k.settings, 'mode', MODE.QUEUE_ALL)
elseif action == ACTION.RESUME then
    redis.call('HDEL', k.settings, 'mode', 'draining')
elseif action == ACTION.DRAIN then
    redis.call('HSET', k.settings, 'mode', MODE.QUEUE_ALL, 'draining', '1')
elseif action == ACTION.UNDRAIN then
    redis.call('HDEL', k.settings, 'draining')
elseif action == ACTION.STOCK then
    if value == '' then
        forget_stock(k, before, now)
    elseif not string.match(value, '^%d+$') then
        return redis.error_reply('a stock is a whole number of units, not ' .. tostring(value))
    else
        set_stock(k, before, tonumber(value), 'set', now)
    end
else
    return redis.error_reply('unknown action ' .. tostring(action))
end
-- Gateways that remember active users for up to a second forget the whole product ('*') at
-- once: a room that closes must not let anyone through on a remembered pass.
redis.call('PUBLISH', k.released, '*')
local c = settings_of(k)
local promoted = 0
if rule(c, 'max-active') then
    promoted = fill(k, now, c)
end
return { 'promoted', promoted, 'abandoned', abandoned_this_call(), 'stock', stock_reply(c),
    'sold_out', (sold_out(c) and not was_sold_out) and 1 or 0 }
