--!include fill.lua
-- Where a user stands, read in one step so a promotion between two reads cannot make an active
-- user look absent. Changes nothing but what being there changes: asking counts as still being
-- there (abandon-after, and the product's last-heard time) and keeps the user's line entries as
-- long as the product's keys; the first read after a sale's opens-at records the opening, as any
-- script would.
--
-- After a loss, a place or session the user's wait token proves comes back here too (fill.lua's
-- reclaim): a live page that asks is a shopper who came back.
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id   2 user id   3 now (epoch ms)   4 what the user's token proves that Redis
--       may have lost ('s <session end>', 'w <ticket>'), else ''
-- Reply state (STATE: active, waiting, pre_queue or not_found), rank (1-based while waiting; in a
--       pre-queue how many are in it), rate (admissions per second x 10^6), opens (the sale's
--       opens-at, epoch ms, -1 when none), abandon (the product's abandon-after, ms, 0 = never,
--       so the answer can say when to ask again), timed (1 when promotion runs on a clock of its
--       own: opens-at or max-admit-per-minute), ticket (the user's ticket while in line, negative
--       in the invited line; else 0), commitment (the commitment to the seed of the product's last
--       draw, '' when none), stock (units left, -1 while unknown), units (units-per-shopper),
--       admitted (unexpired sessions, while the stock is known, else 0); once sold out, a user in
--       line or without a place reads SOLD_OUT (with the rank the place still has), an admitted
--       one still ACTIVE; {'recover', 1} instead when the product must be recovered first
local k = script_keys()
local uid, now = ARGV[2], tonumber(ARGV[3])
local c = settings_of(k)
if stale(k, c) then
    return RECOVER
end
local changes = {}
heard(now, c, changes)

local function answer(state, rank, ticket)
    if #changes > 0 then
        redis.call('HSET', k.settings, unpack(changes))
    end
    if state ~= STATE.ACTIVE and sold_out(c) then
        state = STATE.SOLD_OUT
    end
    local stock = stock_reply(c)
    return { 'state', state, 'rank', rank, 'rate', rate_reply(c, now), 'opens', tonumber(rule(c, 'opens-at')) or -1,
        'abandon', tonumber(rule(c, 'abandon-after')) or 0, 'timed', is_timed(c), 'ticket', ticket or 0,
        'commitment', commitment_of(c), 'stock', stock, 'units', units_of(c),
        'admitted', stock >= 0 and redis.call('ZCOUNT', k.active, '(' .. now, '+inf') or 0 }
end

local expiry = redis.call('ZSCORE', k.active, uid)
local back = ARGV[4] or ''
if back ~= '' and not (expiry and tonumber(expiry) > now) and not place_of(k, uid, c)
        and not returning_rank(k, c, uid) then
    reclaim(k, c, uid, back, now, changes)
    expiry = redis.call('ZSCORE', k.active, uid)
end
if expiry and tonumber(expiry) > now then
    return answer(STATE.ACTIVE, 0)
end
local lk, lc, ticket = place_of(k, uid, c)
if not ticket then
    local returning = returning_rank(k, c, uid)
    if returning then
        return answer(opened(k, now, c, true) and STATE.WAITING or STATE.PRE_QUEUE, returning)
    end
    return answer(STATE.NOT_FOUND, 0)
end
stamp_seen(lk, ticket, now, lc, changes)
local ttl = redis.call('PTTL', k.settings)
if ttl > 0 then
    keep(lk, uid, ticket, ttl)
end
if not opened(k, now, c, true) then
    return answer(STATE.PRE_QUEUE, waiting_count(k, c), reply_ticket(k, lk, ticket))
end
return answer(STATE.WAITING, rank_among_all(k, c, lk, lc, ticket), reply_ticket(k, lk, ticket))
