--!include fill.lua
-- Ends a user's place, waiting or active: a completed purchase or an explicit leave. The freed
-- place is refilled in the same call. Products on pub/sub also announce it, so every instance
-- (and anything else listening) hears that a place opened; products on stream promotion are told
-- to the caller, which appends the event to the shared stream (a key of another slot).
--
-- With 'drop' (the shop answered 404 to the request that made an unconfigured product's first
-- place: it sells no such product), a product left with nobody in it and no operator's setting
-- loses every key at once: an invented id costs nothing once the shop has said so.
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id   2 user id   3 now (epoch ms)   4 'drop' to drop the product if it is left
--       empty, else ''   5 'sale' when the shop's answer to an admitted user's completing request
--       confirmed a sale (a stock an operator or the setting gave then goes down by
--       units-per-shopper, unless the answer said the units left), '' for a leave (an explicit
--       one, Queue-Release, or a redirect that sold nothing)   6 the units left as the shop's
--       answer said them (Queue-Stock), '' when it said none   7 when the request that answer is
--       for was forwarded (epoch ms, the gateway's clock), '' without one. The stock changes with
--       the end of the session, before the freed place is filled.
-- Reply held (1 when the user held a place), promoted (users admitted into the freed place),
--       stream (1 when the product's slot-free event should go to the stream), abandoned (users
--       dropped as not seen lately on the way to the freed place), stock (units left after the
--       call, -1 while unknown), sold_out (1 when this call sold the product out); {'recover', 1}
--       instead when the product must be recovered first (fill.lua's stale)
local k = script_keys()
local uid, now = ARGV[2], tonumber(ARGV[3])
local c = settings_of(k)
if stale(k, c) then
    return RECOVER
end
local was_active = redis.call('ZREM', k.active, uid)
local held = was_active + give_up(k, uid, c)
local sale, said, said_at = ARGV[5] == 'sale', tonumber(ARGV[6] or ''), tonumber(ARGV[7] or '')
local was_sold_out = sold_out(c)
if said then
    set_stock(k, c, said, 'shop', now, said_at or now)
elseif was_active == 1 and sale and c.stock and c.stock_src == 'set' then
    set_stock(k, c, tonumber(c.stock) - units_of(c), 'sale', now)
end
redis.call('ZREM', k.arriving, uid)
-- A deleted slot key raises no expiry event, so a leave never counts twice. A completion claim
-- ends with the session it was for.
redis.call('DEL', k:slot(uid), k:completing(uid))
if held > 0 then
    -- Gateways that remember active users for up to a second forget this one at once.
    redis.call('PUBLISH', k.released, uid)
    -- Every gateway learns the end from here when it starts or Redis forgets: a token signed
    -- before it never brings the place or session back, whichever instance heard it end.
    -- Kept while a token signed before the end lives; the key lives as long as the product's.
    local kept = (tonumber(ARGV[8]) or 0) + (tonumber(rule(c, 'session-ttl')) or 0)
    redis.call('ZADD', k.ended, now, uid)
    redis.call('ZREMRANGEBYSCORE', k.ended, '-inf', '(' .. (now - kept))
    inherit_ttl(k, k.ended)
end
local promoted = 0
if rule(c, 'max-active') then
    promoted = fill(k, now, c)
end
if ARGV[4] == 'drop' and waiting_count(k, c) == 0 and redis.call('ZCARD', k.active) == 0 and not c.mode
        and not c.draining and not c.max_override then
    redis.call('DEL', k.settings, k.active, k.seq, k.arriving, k.left, k.returning, k.honoured, k.reclaimed,
        k.ended)
    -- The seen marks of the request that made the place (its span, or the one before when it just turned).
    local abandon = tonumber(rule(c, 'abandon-after')) or 0
    if abandon > 0 then
        local span = seen_span(abandon)
        redis.call('DEL', k:seen(span, math.floor(now / span)), k:seen(span, math.floor(now / span) - 1))
    end
    return { 'held', held > 0 and 1 or 0, 'promoted', promoted, 'stream', 0, 'abandoned', abandoned_this_call(), 'stock', -1,
        'sold_out', 0 }
end
local stream = 0
if held > 0 and rule(c, 'promotion') == 'pubsub' then
    redis.call('PUBLISH', k.slot_available, uid)
end
if held > 0 and rule(c, 'promotion') == 'stream' then
    stream = 1
end
return { 'held', held > 0 and 1 or 0, 'promoted', promoted, 'stream', stream, 'abandoned', abandoned_this_call(),
    'stock', stock_reply(c), 'sold_out', (sold_out(c) and not was_sold_out) and 1 or 0 }
