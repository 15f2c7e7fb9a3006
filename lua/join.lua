--!include fill.lua
-- Enters users into a product's line, or reports where they already are. One call carries every
-- join and Redis-side poll an instance gathered for the product while its previous call ran
-- (group commit): the call's fixed costs (the script, the settings, the rules) are paid once, and
-- each user is decided in turn, exactly as if alone.
--
-- Idempotent: a waiting user keeps their ticket, an active user keeps their session (a join
-- never extends it, except an admitted user's first arrival: see fill.lua). A new user takes the
-- next ticket, then free places are filled at once, so someone arriving at an empty product is
-- admitted in this same call. Every request of a user in line counts as being seen (abandon-after).
--
-- Most of what a call could write changes rarely, so it is written only then: each rule when it
-- differs from what is stored, the product's key expiry every KEEP_EVERY at most, 'heard_at' once a
-- second, a seen bitmap's expiry once per span.
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  the product id; then the route's rules (rules.lua: ProductRules.wire(), each rule's name
--       and value, after their number of words); then the call's own arguments by name, after
--       their number of words; then each user's (USER_ARGUMENTS), in the order JoinScript sends
--       them from its UserArgument enum (ScriptContractTest holds the two lists to one order).
--   the rules             stored as fill.lua's store_rules stores them, and read from there
--                         (closes-at: when the sale ends, '' for never; stock: the product's stock
--                         setting, which sets the stock when it first comes or changes)
--   now                   the call's time (epoch ms)
--   idle_ttl              how long the product's keys outlive its last visitor (ms), so queues nobody
--                         visits any more (or that a hostile client invented) vanish
--   draw_seed             the seed of the sale's draw (derived by the gateway from the product and
--                         opens-at), used if this call opens the pre-queue's draw ('' when no draw
--                         can open: no opens-at, or it has passed)
--   seed_commitment       the seed's commitment (its SHA-256, hex; '' with no seed)
--   configured            '1' when the product is configured (queuegate.products): its keys then
--                         live the idle ttl; an unconfigured product nobody waits in and no operator
--                         touched keeps them only as long as its sessions can last
--   and per user:
--   user                  the user id
--   claim                 when the request would complete the session (complete-on: an active user
--                         must then claim the completion) the claim's id, a random string without
--                         ':', else ''
--   invite                what the user brings towards the product's invitations: '' (none needed),
--                         'required' (a new place needs a valid invitation and the request brought
--                         none), or a valid invitation the gateway checked, as '<uses> <expires
--                         (epoch ms)> <line> <jti>' (line 'invited' for the invited line of invites:
--                         priority, 'main' to count it only)
--   mark, mark_ttl        when the join paid a proof of work, the solved challenge's mark (hex) and
--                         how long it must be kept (ms), else ''
--   reclaim               what the user's wait token proves that Redis may have lost, for fill.lua's
--                         reclaim ('s <session end> <signed>', 'w <ticket>'), else ''
--   terms                 the request's terms for a new place, letters: 'c' a completing request of
--                         a token holder (it never makes a place), 'p' the product asks a proof of
--                         work the request did not bring, 'l' the caller is past its join limit (the
--                         gateway counts a join only when a place is made)
--   bucket                the user's bucket in the line (line.lua), as the gateway worked it out
-- Reply rate (admissions per second x 10^6), promoted (users this call admitted), abandoned (users
--       it dropped as not seen lately), commitment (the
--       commitment to the seed of the product's last draw, '' when none), stock (units left, -1
--       while unknown), units (units-per-shopper), admitted (unexpired sessions, counted only
--       while the stock is known, else 0), users: one entry per
--       user, in the order given, each the fixed list {state (STATE), rank (1-based while
--       waiting, the invited line ahead of the main one; in a pre-queue how many are in it; else
--       0), enqueued (1 when this call gave the user a new ticket), ticket (the user's ticket while
--       in line, negative in the invited line; else 0), session end (epoch ms while active, else
--       0)}; JoinScript reads it. {'recover', 1} instead, deciding nothing, when the product must
--       be recovered first (fill.lua's stale)
local USER_ARGUMENTS = { 'user', 'claim', 'invite', 'mark', 'mark_ttl', 'reclaim', 'terms', 'bucket' }
-- After script_keys(), which takes the gateway's epoch out of ARGV.
local k = script_keys()
local given, at = counted_words(2)
local words, first_user = counted_words(at)
local call = by_name(words)
local now = tonumber(call.now)
local idle = tonumber(call.idle_ttl)
local seed, commitment = call.draw_seed, call.seed_commitment
local KEEP_EVERY = math.min(60000, idle / 10)
-- An invitation's count outlives its expiry by this much: instances' clocks differ a little, and
-- one that still takes the invitation must still find its count.
local INVITE_MARGIN = 60000

local c = settings_of(k)
if stale(k, c) then
    return RECOVER
end
local configured = call.configured == '1'
-- A product with no state before this call keeps none unless someone in it holds something after.
local known = rule(c, 'max-active') and true or false
local changes = {}
if c.epoch ~= k.epoch then
    -- A product new to this Redis: born in the gateway's epoch.
    c.epoch = k.epoch
    changes[#changes + 1] = 'epoch'
    changes[#changes + 1] = k.epoch
end
-- The scheduler and the leave path have no request to read the route from; they use the rules
-- the last join stored.
store_rules(k, c, now, given, changes, true)
local ttl, arrival = tonumber(rule(c, 'session-ttl')), tonumber(rule(c, 'arrival-ttl'))
local closes = rule(c, 'closes-at') or ''
heard(now, c, changes)
local renew = not c.kept_at or now - tonumber(c.kept_at) >= KEEP_EVERY
if renew then
    c.kept_at = tostring(now)
    changes[#changes + 1] = 'kept_at'
    changes[#changes + 1] = c.kept_at
end

defer_line_writes(call.idle_ttl)

-- The user is still there: seen, and their line entries kept (in the line lk, whose settings are lc).
local function present(lk, lc, uid, ticket)
    stamp_seen(lk, ticket, now, lc, changes)
    keep(lk, uid, ticket, call.idle_ttl)
end

-- Once a fill finds no place free (or no admission due by the pace), none frees within the call.
local full = false
-- Places this call made in the invited line: every gateway adds them to the ranks of the main
-- line it works out from memory until it reads the line again (view.lua).
local invited_joins = 0
local promoted = 0

-- The places given up ahead, counted once a call and again after each fill (which may pass places
-- given up and trim them).
local left_count = nil

local function rank_of_new(ticket)
    -- A new ticket is the last in the main line: everyone between the head and it, less the places
    -- given up, and behind the whole invited line.
    if not left_count then
        left_count = redis.call('ZCARD', k.left)
    end
    local rank = ticket - (tonumber(c.head) or 1) + 1 - left_count + returning_count(k, c)
    if c.invited then
        rank = rank + line_length(invited_line(k, c))
    end
    return rank
end

-- Whether the sale has closed, and whether it has opened (worked out by the first user who needs
-- it): both hold for the whole call, which decides at one 'now'.
local ended = closes ~= '' and now >= tonumber(closes)
local is_open = nil

-- Every user's session expiry, read for the whole call in one command before anyone is decided
-- (a storm's call of 64 then makes one look-up, not 64): user id -> expiry, or false when none.
-- A session this call itself writes is read again from Redis: those of the users a fill admits,
-- an arrival's, a reclaimed one. The expired sessions a fill drops stay here as they were read:
-- every reader asks whether the expiry is still ahead of 'now', which is the call's, so an
-- expired entry and a dropped one answer alike.
local sessions = {}

local function session_of(uid)
    local expiry = sessions[uid]
    if expiry == nil then
        return tonumber(redis.call('ZSCORE', k.active, uid))
    end
    return expiry or nil
end

local function admitted(uid, claim, expiry)
    expiry = arrive(k, uid, now, c, expiry)
    sessions[uid] = nil
    if claim ~= '' and not claim_completion(k, uid, now, expiry, claim) then
        return { STATE.COMPLETING, 0, 0, 0, 0 }
    end
    return { STATE.ACTIVE, 0, 0, 0, expiry }
end

-- Whether the user may take a new place, given what they bring towards invitations: the STATE
-- that turns them away (else nil), and whether the place is in the invited line. An invitation's
-- use is counted here, in the step that makes the place, so a user already in line or admitted
-- who brings it again uses nothing.
local function invitation(invite)
    if invite == '' then
        return nil, false
    end
    if invite == 'required' then
        return STATE.INVITE_REQUIRED, false
    end
    local uses, expires, line, id = string.match(invite, '^(%d+) (%d+) (%a+) (%S+)$')
    if not id then
        error('an invitation is given as "<uses> <expires> <line> <jti>", not ' .. invite)
    end
    local key = k:invite(id)
    local used = tonumber(redis.call('GET', key)) or 0
    if used >= tonumber(uses) then
        return STATE.INVITE_USED, false
    end
    redis.call('SET', key, used + 1, 'PX', math.max(1, tonumber(expires) - now) + INVITE_MARGIN)
    return nil, line == 'invited'
end

-- For a user who holds nothing: the answer that no room mode or later request changes (a
-- completing request never makes a place; a sold-out product makes none), else nil.
local function never_a_place(terms)
    if terms ~= '' and string.find(terms, 'c', 1, true) then
        return { STATE.SESSION_ENDED, 0, 0, 0, 0 }
    end
    if sold_out(c) then
        return { STATE.SOLD_OUT, 0, 0, 0, 0 }
    end
    return nil
end

-- Whether a user who holds nothing would take a place at the back of the main line now, their own
-- terms aside: nothing about the room or the sale turns new places away or sends them elsewhere
-- (the invited line, the places reclaimed after a loss, the pre-queue). Never for a product with no
-- state before this call: working out the opening writes it, and a user then refused (a used
-- mark) would leave that written for an invented product, with no expiry.
local function takes_place_at_once()
    if not known or c.mode == MODE.CLOSED or c.invited or c.returning or c.draining == '1' or ended or sold_out(c) then
        return false
    end
    if c.mode == MODE.PASSTHROUGH then
        return true
    end
    if is_open == nil then
        is_open = opened(k, now, c, true)
    end
    return is_open
end

local function decide(uid, claim, invite, mark, mark_ttl, back, terms)
    -- What the token proves and Redis lost comes back first, whatever the room's mode.
    if back ~= '' then
        local expiry = session_of(uid)
        if not (expiry and expiry > now) and not place_of(k, uid, c) and not returning_rank(k, c, uid) then
            reclaim(k, c, uid, back, now, changes)
            sessions[uid] = nil
        end
    end
    if c.mode == MODE.CLOSED then
        -- Turned away for now, but still there: whoever has a place keeps it.
        local lk, lc, ticket = place_of(k, uid, c)
        if ticket then
            present(lk, lc, uid, ticket)
            return { STATE.ROOM_CLOSED, 0, 0, reply_ticket(k, lk, ticket), 0 }
        end
        -- Someone who holds nothing hears first what no reopening changes.
        local expiry = session_of(uid)
        return (not (expiry and expiry > now) and never_a_place(terms)) or { STATE.ROOM_CLOSED, 0, 0, 0, 0 }
    end
    local expiry = session_of(uid)
    if expiry and expiry > now then
        return admitted(uid, claim, expiry)
    end
    local enqueued = 0
    local lk, lc, ticket
    if back == '' and terms == '' and invite == '' and takes_place_at_once() then
        -- A storm's new user: one command finds they hold no ticket and writes the next one (else
        -- they hold an entry, and the long way below reads it). Paid for by a proof of work, the
        -- place is theirs only if the mark was not taken before.
        ticket = reserve_ticket(k, uid)
        if ticket then
            if mark ~= '' and not redis.call('SET', k:challenge(mark), '1', 'NX', 'PX', mark_ttl) then
                drop_reserved(k, uid)
                return { STATE.CHALLENGE_USED, 0, 0, 0, 0 }
            end
            take_reserved(k, uid, ticket)
            lk, lc, enqueued = k, c, 1
        end
    end
    if not ticket then
        lk, lc, ticket = place_of(k, uid, c)
    end
    if not ticket then
        local returning = returning_rank(k, c, uid)
        if returning then
            return { STATE.WAITING, returning, 0, 0, 0 }
        end
        -- The user holds nothing: what would make a place, in this order.
        local never = never_a_place(terms)
        if never then
            return never
        end
        if c.draining == '1' then
            return { STATE.DRAINING, 0, 0, 0, 0 }
        end
        if ended then
            return { STATE.SALE_ENDED, 0, 0, 0, 0 }
        end
        if terms ~= '' and string.find(terms, 'p', 1, true) then
            return { STATE.CHALLENGE_REQUIRED, 0, 0, 0, 0 }
        end
        if terms ~= '' and string.find(terms, 'l', 1, true) then
            return { STATE.JOIN_LIMITED, 0, 0, 0, 0 }
        end
        -- A proof-of-work solution buys one place, on whichever instance it is shown: the first to
        -- make a place with it takes its mark, which lasts as long as any instance would accept it.
        -- Without an invitation to check, nothing can refuse the place once the mark is taken: one
        -- command takes it or finds it taken.
        if mark ~= '' and invite == '' then
            if not redis.call('SET', k:challenge(mark), '1', 'NX', 'PX', mark_ttl) then
                return { STATE.CHALLENGE_USED, 0, 0, 0, 0 }
            end
        elseif mark ~= '' and redis.call('EXISTS', k:challenge(mark)) == 1 then
            return { STATE.CHALLENGE_USED, 0, 0, 0, 0 }
        end
        local refused, invited = invitation(invite)
        if refused then
            return { refused, 0, 0, 0, 0 }
        end
        if mark ~= '' and invite ~= '' then
            redis.call('SET', k:challenge(mark), '1', 'PX', mark_ttl)
        end
        -- From here on the user takes a new place, whatever the room's mode or the sale's state.
        lk, lc = k, c
        if invited then
            if not c.invited then
                c.invited = '1'
                changes[#changes + 1] = 'invited'
                changes[#changes + 1] = '1'
            end
            lk, lc = invited_line(k, c)
        end
    end
    if ticket and sold_out(c) then
        -- Sold out: told so, and still there (the place is kept until a restock or closes-at).
        present(lk, lc, uid, ticket)
        return { STATE.SOLD_OUT, 0, 0, reply_ticket(k, lk, ticket), 0 }
    end
    if c.mode ~= MODE.PASSTHROUGH and is_open == nil then
        is_open = opened(k, now, c, true)
    end
    if c.mode ~= MODE.PASSTHROUGH and not is_open then
        if not ticket then
            ticket = pre_queue(k, uid, c, seed, commitment, lk ~= k)
            enqueued = 1
            if lk ~= k then
                invited_joins = invited_joins + 1
            end
        end
        present(lk, lc, uid, ticket)
        return { STATE.PRE_QUEUE, waiting_count(k, c), enqueued, reply_ticket(k, lk, ticket), 0 }
    end
    if not ticket then
        ticket = enqueue(lk, uid)
        enqueued = 1
        if lk ~= k then
            invited_joins = invited_joins + 1
        end
    end
    present(lk, lc, uid, ticket)
    if not full then
        -- The fill reads the pages: this call's new entries go in first.
        flush_line_writes(changes, false)
        local moved, outcome, heads = fill(k, now, c)
        left_count = nil
        promoted = promoted + moved
        if moved > 0 then
            for _, head in ipairs(heads) do
                sessions[head] = nil
            end
            -- Admitted by this very request: they have arrived.
            expiry = session_of(uid)
            if expiry then
                local answer = admitted(uid, claim, expiry)
                answer[3] = enqueued
                return answer
            end
        elseif outcome == PROMOTION.FULL then
            full = true
        end
    end
    if enqueued == 1 and lk == k then
        return { STATE.WAITING, rank_of_new(ticket), 1, ticket, 0 }
    end
    return { STATE.WAITING, rank_among_all(k, c, lk, lc, ticket), enqueued, reply_ticket(k, lk, ticket), 0 }
end

local PER_USER = #USER_ARGUMENTS
local users = {}
local holds = { [STATE.ACTIVE] = true, [STATE.WAITING] = true, [STATE.PRE_QUEUE] = true, [STATE.COMPLETING] = true }
local held = false
-- Every user's bucket is checked before anyone is decided: a call that fails halfway would leave
-- the bucket entries already written without the counter and pages they wait on.
local ids = {}
for i = first_user, #ARGV, PER_USER do
    give_bucket(ARGV[i], ARGV[i + 7])
    ids[#ids + 1] = ARGV[i]
end
if #ids > 0 then
    local expiries = redis.call('ZMSCORE', k.active, unpack(ids))
    for j, uid in ipairs(ids) do
        sessions[uid] = tonumber(expiries[j]) or false
    end
end
for i = first_user, #ARGV, PER_USER do
    local user = decide(ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5], ARGV[i + 6])
    held = held or holds[user[1]] or false
    users[#users + 1] = user
end
flush_line_writes(changes, true)
local stock = stock_reply(c)
local reply = { 'rate', rate_reply(c, now), 'promoted', promoted, 'abandoned', abandoned_this_call(), 'commitment', commitment_of(c),
    'stock', stock, 'units', units_of(c),
    'admitted', stock >= 0 and redis.call('ZCOUNT', k.active, '(' .. now, '+inf') or 0, 'users', users }
if not known and not held then
    -- Nobody took anything (turned away, asked to pay or to wait): an invented product costs nothing.
    return reply
end

-- How long the product's keys live. A product someone waits in, that is configured, or whose
-- room an operator set keeps them the idle ttl (a waiting token comes back within its lifetime);
-- any other keeps them only as long as its sessions can last (a first session, an arrival that
-- extends it, and a renewal period's slack): an invented id costs a few hundred bytes, and only
-- for a session. Set every KEEP_EVERY, and at once when the product starts keeping them long.
local keep_for = idle
if renew or c.kept_long ~= '1' then
    local long = configured or waiting_count(k, c) > 0 or c.mode or c.draining or c.max_override
    if not long then
        keep_for = math.min(idle, ttl + math.min(arrival, ttl) + 2 * KEEP_EVERY)
    end
    if long and c.kept_long ~= '1' then
        renew = true
    end
    -- Marked while long ('1'), absent otherwise: an invented id's settings carry no field for it.
    if renew and (c.kept_long == '1') ~= (long and true or false) then
        if long then
            changes[#changes + 1] = 'kept_long'
            changes[#changes + 1] = '1'
        else
            redis.call('HDEL', k.settings, 'kept_long')
        end
        c.kept_long = long and '1' or false
    end
end
if #changes > 0 then
    redis.call('HSET', k.settings, unpack(changes))
end
if invited_joins > 0 then
    redis.call('PUBLISH', k.invited_joined, invited_joins)
end
-- Every KEEP_EVERY, a visit renews all the product's keys together (once they exist, so just
-- before answering): the ticket counter can never reset while anyone waits.
if renew then
    for _, key in ipairs({ k.settings, k.active, k.seq, k.arriving, k.left }) do
        redis.call('PEXPIRE', key, keep_for)
    end
    if c.invited then
        redis.call('PEXPIRE', k.invited.seq, keep_for)
        redis.call('PEXPIRE', k.invited.left, keep_for)
    end
elseif invited_joins > 0 then
    -- The invited line's counter may be new: it must not outlive the product's other keys.
    redis.call('PEXPIRE', k.invited.seq, keep_for)
end
return reply
