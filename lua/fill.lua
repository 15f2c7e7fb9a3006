--!include codes.lua
--!include line.lua
-- The promotion rule, written once for every script that can open places (join, promote, due,
-- leave, expire, admin).
--
-- Counts the unexpired sessions and, when there is room, drops the expired ones and moves users
-- from the head of the line (line.lua) into the active set until max-active is reached: strictly
-- first come, first served, except that a product's invited line (invites: priority) is served
-- before its main line. The active ZSET (score = session expiry) is the only count of
-- admitted users, so no counter can drift from it. Products on keyspace promotion also get one
-- slot key per admitted user with the session's TTL: Redis announces its expiry, which is what
-- promotes the next user.
--
-- The settings HASH holds the route's rules as the last join stored them (each by its name: see
-- rules.lua and store_rules, docs/redis.md) and the operator's levers (admin.lua): 'max_override' replaces
-- max-active, 'mode' is the room mode (absent = queue; codes.lua's MODE, each obeyed where the
-- scripts test c.mode). Each promotion feeds the
-- product's admission rate, an exponentially weighted rate (time constant RATE_TAU_MS) shared by
-- every instance, and is announced on k.admitted (space-separated user ids) so the instance
-- holding a shopper's live connection learns of it without polling.
--
-- Drops (opens-at): nobody is admitted before opening. The first pre-queue join opens a draw
-- with a seed the gateway drew at random and records its first ticket ('draw_from'), and the
-- seed's SHA-256 ('commitment'), which every answer shows from then on; the opening records the
-- last ticket ('draw_to'), and from then on those tickets stand in line in the order of a
-- permutation keyed by the seed (line.lua), which is kept secret until then: a fair draw, fixed
-- once and atomically before anyone could see who joined, that anyone can recompute and check
-- against the commitment afterwards. Everyone drawn is ahead of everyone who joins after opening.
-- Drawing costs nothing at opening time: positions are computed when needed.
--
-- Arrival (arrival-ttl): a promoted user first gets a session of 'arrival' ms and an entry in
-- k.arriving; their first request through the gateway extends it to the full session.
-- Pace (max-admit-per-minute): admissions are spaced 60000 / apm ms apart, by a virtual next-
-- admission time 'admit_at' in the HASH, shared by every instance; at most one second's worth is
-- ever let in at once.
local RATE_TAU_MS = 60000
-- The longest gap between admissions taken as the line's pace (see admission_rate).
local RATE_GAP_MAX_MS = 2 * RATE_TAU_MS
local PASSTHROUGH_BATCH = 1000

-- What a product script answers, without deciding anything, when the product must be recovered
-- first (see stale): the gateway runs recover.lua with what it remembers, then asks again.
local RECOVER = { 'recover', 1 }

-- The settings HASH as a table; absent fields are false. HGETALL, not HMGET of the fields: the
-- hash is a small listpack, read in one pass, and most fields are absent most of the time.
local function settings_of(k)
    local values = redis.call('HGETALL', k.settings)
    local c = setmetatable({}, { __index = function()
        return false
    end })
    for i = 1, #values, 2 do
        c[values[i]] = values[i + 1]
    end
    return c
end

-- Whether the product's state must be recovered (recover.lua) before a script decides on it.
-- Every product's settings carry the epoch they were written under ('epoch'): the identity of
-- the Redis data a gateway checked when it connected, which a restart, a failover or a restore
-- changes. State of another epoch is what such a loss left behind (a replica's older copy, an
-- AOF's last second lost), and no state at all, while a gateway recovers a loss, may be a product
-- that was lost entirely: the gateways' memory and the shoppers' tokens must be merged into it
-- first. State of a release before epochs (no 'epoch' field) is adopted the same way.
local function stale(k, c)
    if c.epoch == k.epoch then
        return false
    end
    if not c.epoch and not rule(c, 'max-active') then
        return k.recovering
    end
    return true
end

-- The stock (docs/drops.md, "The line knows the stock"): the units not sold yet, the admitted
-- shoppers' carts included ('stock'; absent while unknown, and then max-active alone caps the
-- sessions), who said it last ('stock_src': 'shop' for the shop's Queue-Stock header, 'set' for an
-- operator or the product's setting), how many units one admission may buy ('units', the route's
-- units-per-shopper) and when it last ran out ('sold_out_at'). Sessions are opened only while
-- admitted x units < stock, so nobody is admitted to buy nothing.
local function units_of(c)
    return math.max(1, tonumber(rule(c, 'units-per-shopper')) or 1)
end

local function sold_out(c)
    local stock = tonumber(c.stock)
    return stock ~= nil and stock <= 0
end

-- How many sessions may run at once: max-active, and no more than the stock left can serve.
local function session_cap(c)
    local cap = tonumber(c.max_override) or tonumber(rule(c, 'max-active'))
    local stock = tonumber(c.stock)
    if stock then
        cap = math.min(cap, math.ceil(math.max(0, stock) / units_of(c)))
    end
    return cap
end

-- Sets the stock left, from the shop ('shop', the Queue-Stock header of an answer) or from an
-- operator or the product's setting ('set'), up or down. Shop answers overtake each other, so
-- each change is stamped ('stock_at'): a set with the time it was made, a shop's word with when the
-- request it answers was forwarded ('said_at', the gateway's clock). A shop's word on a request
-- forwarded before the last change says less than that change and is ignored, whether it would
-- raise or lower the stock; so an operator's restock stands until the shop next speaks. A count
-- down by a sale ('sale') is no statement of the stock and leaves the stamp. Running out is noted
-- once ('sold_out_at'); a restock after it gives everyone still in line a whole abandon-after to
-- be seen again, as an opening does (they were told to stop asking). Returns whether the stock
-- changed.
local function set_stock(k, c, value, source, now, said_at)
    value = math.max(0, math.floor(value))
    local before = tonumber(c.stock)
    if source == 'shop' and said_at and said_at < (tonumber(c.stock_at) or 0) then
        return false
    end
    if before == value then
        if source == 'set' then
            -- An operator's word is a change even when it repeats the stock: older answers yield to it.
            c.stock_at = tostring(math.max(tonumber(c.stock_at) or 0, now))
            redis.call('HSET', k.settings, 'stock_at', c.stock_at)
        end
        return false
    end
    local fields = { 'stock', tostring(value) }
    local stored_source = source == 'sale' and 'set' or source
    if c.stock_src ~= stored_source then
        fields[#fields + 1] = 'stock_src'
        fields[#fields + 1] = stored_source
        c.stock_src = stored_source
    end
    if source ~= 'sale' then
        c.stock_at = tostring(math.max(tonumber(c.stock_at) or 0, source == 'shop' and said_at or now))
        fields[#fields + 1] = 'stock_at'
        fields[#fields + 1] = c.stock_at
    end
    if value <= 0 and not c.sold_out_at then
        c.sold_out_at = tostring(now)
        fields[#fields + 1] = 'sold_out_at'
        fields[#fields + 1] = c.sold_out_at
    elseif value > 0 and c.sold_out_at then
        c.sold_out_at = false
        redis.call('HDEL', k.settings, 'sold_out_at')
        c.seen_since = tostring(math.max(tonumber(c.seen_since) or 0, now))
        fields[#fields + 1] = 'seen_since'
        fields[#fields + 1] = c.seen_since
    end
    c.stock = tostring(value)
    redis.call('HSET', k.settings, unpack(fields))
    if (value <= 0) ~= ((before or 1) <= 0) then
        -- Sold out, or restocked: every gateway reads the product's line again at once ('*', as
        -- for an operator's change), so shoppers hear it within a look of their live streams.
        redis.call('PUBLISH', k.released, '*')
    end
    return true
end

-- Forgets the stock: the product is capped by max-active alone again (an operator's choice).
local function forget_stock(k, c, now)
    c.stock, c.stock_src, c.sold_out_at = false, false, false
    c.stock_at = tostring(math.max(tonumber(c.stock_at) or 0, now))
    redis.call('HDEL', k.settings, 'stock', 'stock_src', 'sold_out_at')
    redis.call('HSET', k.settings, 'stock_at', c.stock_at)
end

-- The stock as the replies carry it: units left, -1 while unknown.
local function stock_reply(c)
    return tonumber(c.stock) or -1
end

-- The route's rules as a join or a recovery is given them (rules.lua: each rule's name, then its
-- value), kept in the settings hash for the promotions that have no request to read them from:
-- each under rule_field(name), written only when it differs from what is stored, removed when
-- given as '' (none). What a change of a rule does, beside being stored, is said here by the
-- rule's name; the change is judged against rule(), so a product whose settings the previous
-- release wrote sees no change in a rule that kept its value:
--   abandon-after  whoever is in line gets the whole new period to be seen
--   stock          the product's stock setting sets the stock when it first comes or changes (a
--                  restock by configuration), and only then: after a loss the stock is unknown
--                  until the shop or an operator says it (apply_stock false: a recovery stores the
--                  setting as already applied)
local function store_rules(k, c, now, given, changes, apply_stock)
    -- Each rule as it was before this call wrote any, read once something differs (rarely).
    local before = nil
    for i = 1, #given - 1, 2 do
        local name, value = given[i], given[i + 1]
        if value == '' then
            value = false
        end
        local field = rule_field(name)
        if c[field] ~= value then
            if not before then
                before = {}
                for j = 1, #given - 1, 2 do
                    before[given[j]] = rule(c, given[j])
                end
            end
            if before[name] ~= value then
                if name == 'stock' and value and apply_stock then
                    set_stock(k, c, tonumber(value), 'set', now)
                end
                if name == 'abandon-after' then
                    c.seen_since = tostring(now)
                    changes[#changes + 1] = 'seen_since'
                    changes[#changes + 1] = c.seen_since
                end
            end
            if value then
                changes[#changes + 1] = field
                changes[#changes + 1] = value
            else
                redis.call('HDEL', k.settings, field)
            end
            c[field] = value
        end
    end
end

-- Closes a line's pending draw at the last ticket it handed out: from now on the draw's tickets
-- stand in the order of its permutation, and places given up in the pre-queue, noted by ticket
-- until now, are noted by position.
local function close_draw(k, c)
    local from = tonumber(c.draw_from)
    if from and not c.draw_to then
        local to = last_ticket(k)
        c.draw_to = tostring(to)
        local rescored = redis.call('ZRANGEBYSCORE', k.left, from, to)
        for _, ticket in ipairs(rescored) do
            redis.call('ZADD', k.left, position_of(tonumber(ticket), c), ticket)
        end
        if #rescored > 0 then
            redis.call('HINCRBY', k.settings, k.field.left_v, 1)
        end
        redis.call('HSET', k.settings, k.field.draw_to, c.draw_to)
    end
end

-- Whether the product's sale has opened (always, without opens-at). The first call after
-- opens-at records the opening and closes a pending draw at the last ticket taken: from now on
-- the draw's tickets stand in the order of its permutation, and places given up in the
-- pre-queue, noted by ticket until now, are noted by position. With write false (a read that
-- must not write) nothing is recorded.
local function opened(k, now, c, write)
    local opens_at = rule(c, 'opens-at')
    local opens = tonumber(opens_at)
    if not opens then
        return true
    end
    if now < opens then
        return false
    end
    if c.opened ~= opens_at and write then
        close_draw(k, c)
        close_draw(invited_line(k, c))
        -- Nobody had a reason to ask before the opening: the pre-queue keeps its places as long
        -- as its shoppers come back within abandon-after of it (seen_lately).
        c.seen_since = tostring(math.max(tonumber(c.seen_since) or 0, now))
        redis.call('HSET', k.settings, 'opened', opens_at, 'seen_since', c.seen_since)
        c.opened = opens_at
    end
    return true
end

-- A ticket in the pre-queue of a sale not yet open, in the main line or (invited) the invited
-- one. The first one opens a draw in both lines with the seed the gateway derived for the sale
-- ('seed', from the product and its opens-at, which 'draw_opens' keeps), kept secret until the
-- opening, its SHA-256 ('commitment', which Redis cannot work out: the gateway gives it with the
-- seed), and each line's first ticket. A sale moved before it opened keeps its pending draw, seed
-- and commitment. A product that opens again before the crowd of its last draw
-- got through draws nobody: newcomers queue behind that crowd (the invited line's is served
-- first: when the main line's crowd is through, so is the invited one's).
local function pre_queue(k, uid, c, seed, commitment, invited)
    local to = tonumber(c.draw_to)
    if not c.draw_from or (to and (tonumber(c.head) or 1) > to) then
        if not seed or seed == '' or not commitment or commitment == '' then
            error('a pre-queue draw needs a seed and its commitment from the gateway')
        end
        local ki, ci = invited_line(k, c)
        c.seed, c.commitment = seed, commitment
        c.draw_from, c.draw_to = tostring(last_ticket(k) + 1), false
        c.commitment_draw = c.draw_from
        c.draw_opens = rule(c, 'opens-at')
        ci.draw_from, ci.draw_to = tostring(last_ticket(ki) + 1), false
        redis.call('HSET', k.settings, 'seed', c.seed, k.field.draw_from, c.draw_from, ki.field.draw_from,
            ci.draw_from, 'commitment', c.commitment, 'commitment_draw', c.commitment_draw, 'draw_opens', c.draw_opens)
        redis.call('HDEL', k.settings, k.field.draw_to, ki.field.draw_to)
    end
    if invited then
        return enqueue(invited_line(k, c), uid)
    end
    return enqueue(k, uid)
end

-- The commitment to the seed of the product's last draw (pending or closed), or '' when there is
-- none. A draw opened by a release before commitments has none: it keeps its seed and its order,
-- unannounced; the commitment of an earlier draw, still stored, is not its own, since each
-- commitment names the draw it belongs to ('commitment_draw', the draw's first ticket).
local function commitment_of(c)
    if c.draw_from and c.commitment and c.commitment_draw == c.draw_from then
        return c.commitment
    end
    return ''
end

-- How many admissions max-admit-per-minute allows now (at most 'wanted'), and the pace's
-- interval in ms; nil when the product is not paced.
local function due_admissions(now, c, wanted)
    local apm = tonumber(rule(c, 'max-admit-per-minute')) or 0
    if apm <= 0 then
        return wanted, nil, nil
    end
    local interval = 60000 / apm
    local burst = math.max(1, math.floor(1000 / interval))
    local next_at = math.max(tonumber(c.admit_at) or now, now - (burst - 1) * interval)
    if next_at > now then
        return 0, interval, next_at
    end
    return math.min(wanted, math.floor((now - next_at) / interval) + 1), interval, next_at
end

-- Takes up to 'wanted' of the places reclaimed after a loss that wait ahead of both lines, in
-- their order (see reclaim); the product stops looking for them once none is left.
local function take_returning(k, c, wanted)
    local users = {}
    if not c.returning then
        return users
    end
    local popped = redis.call('ZPOPMIN', k.returning, wanted)
    for i = 1, #popped, 2 do
        users[#users + 1] = popped[i]
    end
    if #users < wanted or redis.call('EXISTS', k.returning) == 0 then
        c.returning = false
        redis.call('HDEL', k.settings, 'returning')
    end
    return users
end

-- Fills free places from the head of the line. Returns how many it admitted, what the pass did
-- (PROMOTION: moved, full, or empty when nobody waits) and, when it admitted anyone, who.
local function fill(k, now, c)
    local function nothing()
        return 0, waiting_count(k, c) > 0 and PROMOTION.FULL or PROMOTION.EMPTY
    end
    -- Passthrough forwards everyone: no opening to wait for, no pace to keep.
    local passthrough = c.mode == MODE.PASSTHROUGH
    local open = opened(k, now, c, true)
    if (not open and not passthrough) or c.mode == MODE.QUEUE_ALL or c.mode == MODE.CLOSED then
        return nothing()
    end
    local spares, interval, next_at
    if passthrough then
        spares = PASSTHROUGH_BATCH
    else
        -- Unexpired sessions only; the expired ones are dropped below, once there is room to fill.
        spares = session_cap(c) - redis.call('ZCOUNT', k.active, '(' .. now, '+inf')
        if spares <= 0 then
            return 0, PROMOTION.FULL
        end
        spares, interval, next_at = due_admissions(now, c, spares)
        if spares <= 0 then
            return nothing()
        end
    end
    redis.call('ZREMRANGEBYSCORE', k.active, '-inf', now)
    -- Places reclaimed after a loss that the line could not hold first, in their order; then the
    -- invited line (invites: priority), then the main line, once no ticket of the invited line is
    -- left (a long run of closed tabs there may take more than one call).
    local heads = take_returning(k, c, spares)
    local invited_done = true
    if c.invited and #heads < spares then
        local ki, ci = invited_line(k, c)
        for _, uid in ipairs(take(ki, ci, spares - #heads, now)) do
            heads[#heads + 1] = uid
        end
        invited_done = (tonumber(ci.head) or 1) > last_ticket(ki)
    end
    if #heads < spares and invited_done then
        for _, uid in ipairs(take(k, c, spares - #heads, now)) do
            heads[#heads + 1] = uid
        end
    end
    if #heads == 0 then
        return nothing()
    end
    -- Arrival deadlines of sessions that have ended are of no use any more.
    redis.call('ZREMRANGEBYSCORE', k.arriving, '-inf', now)
    local ttl = tonumber(rule(c, 'session-ttl'))
    local first = math.min(tonumber(rule(c, 'arrival-ttl')) or ttl, ttl)
    local expiry = now + first
    for _, uid in ipairs(heads) do
        redis.call('ZADD', k.active, expiry, uid)
        if first < ttl then
            redis.call('ZADD', k.arriving, expiry, uid)
        end
        if rule(c, 'promotion') == 'keyspace' then
            redis.call('SET', k:slot(uid), '1', 'PX', first)
        end
    end
    inherit_ttl(k, k.active)
    if first < ttl then
        inherit_ttl(k, k.arriving)
    end
    if interval then
        c.admit_at = tostring(next_at + #heads * interval)
        redis.call('HSET', k.settings, 'admit_at', c.admit_at)
    end
    local rate, at = tonumber(c.rate) or 0, tonumber(c.rate_at) or now
    local since_last = math.max(0, now - at)
    rate = rate * math.exp(-since_last / RATE_TAU_MS) + #heads * 1000 / RATE_TAU_MS
    -- The line's gap: the longest recent silence between admissions, forgotten at the rate's pace;
    -- a silence longer than RATE_GAP_MAX_MS is a stop, not the pace, and does not count.
    local gap = (tonumber(c.rate_gap) or 0) * math.exp(-since_last / RATE_TAU_MS)
    if since_last <= RATE_GAP_MAX_MS and since_last > gap then
        gap = since_last
    end
    c.rate, c.rate_at, c.rate_since = tostring(rate), tostring(now), c.rate_since or tostring(now)
    c.rate_gap = tostring(math.floor(gap))
    redis.call('HSET', k.settings, 'rate', c.rate, 'rate_at', c.rate_at, 'rate_since', c.rate_since,
        'rate_gap', c.rate_gap)
    redis.call('PUBLISH', k.admitted, table.concat(heads, ' '))
    return #heads, PROMOTION.MOVED, heads
end

-- An admitted user's first request: their short arrival session becomes the full one. Returns
-- the session's expiry (epoch ms), given the expiry it had.
local function arrive(k, uid, now, c, expiry)
    if redis.call('ZREM', k.arriving, uid) == 0 then
        return expiry
    end
    local ttl = tonumber(rule(c, 'session-ttl'))
    redis.call('ZADD', k.active, now + ttl, uid)
    if rule(c, 'promotion') == 'keyspace' then
        redis.call('SET', k:slot(uid), '1', 'PX', ttl)
    end
    return now + ttl
end

-- A request that would complete the session (complete-on) claims the completion first, so one
-- admission buys once: while the claim stands, every other completing request of the session is
-- refused. The claim ends with the session (leave.lua deletes it), is given back by the gateway
-- only when the shop itself answered with a failure (give_back.lua), and otherwise expires with the
-- session. Its value names the session (its expiry) and the request ('claim', a random id): a
-- claim left by an earlier session whose release was lost never blocks a later session, and only
-- the request that holds a claim can give it back. ('1' is what the previous release stored: held.)
-- Returns whether this request holds the claim.
local function claim_completion(k, uid, now, expiry, claim)
    local key = k:completing(uid)
    local session = tostring(expiry)
    local held = redis.call('GET', key)
    if held and (held == '1' or string.sub(held, 1, #session + 1) == session .. ':') then
        return false
    end
    redis.call('SET', key, session .. ':' .. claim, 'PX', math.max(1, expiry - now))
    return true
end

-- Reclaims, after a loss, what the user's wait token proves and Redis no longer holds. The
-- gateway sends a reclaim only for a token signed in the epoch before the loss and within its
-- recovery window, and only the user's own (docs/redis.md, "When Redis forgets"):
--   's <end> <signed>'  an admitted session, named by a token signed at <signed> (epoch ms): back
--                 until its original end, counted against max-active at once; once, and never
--                 when the session was heard to end after the token was signed (k.honoured, which
--                 recover.lua fills with the ends the gateways heard)
--   'w <ticket>'  a place in line (a negative ticket: the invited line), honoured once per ticket
--                 (k.reclaimed): back at its ticket where the line still holds it (not yet passed
--                 by the head, and below the line's recovery floor 'rfloor', above which only
--                 tickets taken since the loss stand), else in k.returning, served before both
--                 lines in the order of the places' positions
-- Only for a user who is neither admitted nor in line. Returns what it did: 'session', 'place'
-- or 'returning'; nil when there was nothing to reclaim (the user then joins as anyone would).
local RETURNING_INVITED = 2 ^ 50

local function reclaim(k, c, uid, back, now, changes)
    local kind, value, signed = string.match(back, '^([sw]) (%-?%d+) ?(%d*)$')
    if not kind then
        error('a reclaim is "s <session end> <signed>" or "w <ticket>", not ' .. back)
    end
    value = tonumber(value)
    if kind == 's' then
        local honoured = tonumber(redis.call('HGET', k.honoured, uid))
        if value <= now or (honoured and honoured >= (tonumber(signed) or 0)) then
            return nil
        end
        redis.call('ZADD', k.active, value, uid)
        -- Once: the same token (or any signed before now) never brings a session back again.
        redis.call('HSET', k.honoured, uid, now)
        inherit_ttl(k, k.honoured)
        inherit_ttl(k, k.active)
        if rule(c, 'promotion') == 'keyspace' then
            redis.call('SET', k:slot(uid), '1', 'PX', value - now)
        end
        return 'session'
    end
    local lk, lc, ticket = k, c, value
    if value < 0 then
        lk, lc = invited_line(k, c)
        ticket = -value
    end
    if redis.call('SETBIT', lk.reclaimed, ticket, 1) == 1 then
        return nil
    end
    inherit_ttl(k, lk.reclaimed)
    local position = position_of(ticket, lc)
    local floor = tonumber(lc.rfloor)
    if floor and ticket <= floor and position >= (tonumber(lc.head) or 1)
            and redis.call('HSETNX', page_of(lk, ticket), tostring(ticket), uid) == 1 then
        redis.call('HSET', bucket_of(lk, uid), uid, tostring(ticket))
        return 'place'
    end
    redis.call('ZADD', k.returning, position - (lk == k and 0 or RETURNING_INVITED), uid)
    inherit_ttl(k, k.returning)
    if not c.returning then
        c.returning = '1'
        changes[#changes + 1] = 'returning'
        changes[#changes + 1] = '1'
    end
    return 'returning'
end

-- The admission rate (users per second) as of now, from the settings read, for wait estimates;
-- 0 while none is known (fewer than RATE_WARMUP_MS of history). An average that starts from zero
-- underrates the pace at first, by a factor 1 - e^(-age/tau); dividing by it makes early
-- estimates honest. Between two admissions nothing new is known, so the estimate holds still
-- while the line keeps its pace: for half again the line's gap, the longer of the gap the rate
-- predicts (1/rate) and the longest recent silence between admissions ('rate_gap', which sees
-- admissions that come in bursts: two places whose sessions end together), at most
-- RATE_GAP_MAX_MS; only a longer silence lowers it. The level held is the average's value half a
-- gap after the last admission, the middle of the gap, not its peak just after the admission:
-- right after a burst the average overstates the pace by about half a gap's worth, and the
-- estimate would promise too soon. A line admitted at a steady pace, singly or in bursts a
-- minute apart, so shows an estimate that stays within a few percent of the truth and never
-- climbs while the rank stands still. LineView's admissionRate is the same rule in Java
-- (RateRuleTest runs both on the same inputs, EstimateSmoothingTest holds it to the truth).
local RATE_WARMUP_MS = 5000

local function honest_rate(stored, age)
    return stored / (1 - math.exp(-math.max(age, RATE_WARMUP_MS) / RATE_TAU_MS))
end

local function admission_rate(c, now)
    if not c.rate then
        return 0
    end
    local since, at, stored = tonumber(c.rate_since), tonumber(c.rate_at), tonumber(c.rate)
    if now - since < RATE_WARMUP_MS then
        return 0
    end
    local last = honest_rate(stored, at - since)
    local gap = math.min(RATE_GAP_MAX_MS, math.max(last > 0 and 1000 / last or 0, tonumber(c.rate_gap) or 0))
    local quiet = math.max(0, now - at - 1.5 * gap)
    local held = gap / 2 + quiet
    return honest_rate(stored * math.exp(-held / RATE_TAU_MS), at + held - since)
end

-- The rate as the replies carry it: admissions per second times 10^6, a whole number.
local function rate_reply(c, now)
    return math.floor(admission_rate(c, now) * 1000000)
end

-- When the product may next have a promotion due, after fill() has run at 'now': -1 when it never
-- will without a new event (nobody waits, or an operator stopped promotion: joins and operator
-- actions mark the product due again). Used by the safety net's index of due products.
local function next_due(k, now, c)
    if waiting_count(k, c) == 0 or c.mode == MODE.QUEUE_ALL or c.mode == MODE.CLOSED then
        return -1
    end
    if c.mode == MODE.PASSTHROUGH then
        return now + 1
    end
    if not opened(k, now, c, false) then
        return tonumber(rule(c, 'opens-at'))
    end
    if sold_out(c) then
        -- Nobody is admitted until a restock, which marks the product due again.
        return -1
    end
    local admitted = redis.call('ZCARD', k.active)
    if admitted < session_cap(c) then
        -- Places are free and people wait: only the pace (or a run of closed tabs) holds them back.
        return math.ceil(tonumber(c.admit_at) or now + 1)
    end
    local first = redis.call('ZRANGE', k.active, 0, 0, 'WITHSCORES')
    return tonumber(first[2])
end

-- Whether the product's promotion runs on a clock of its own (opens-at or a pace): such products
-- are promoted every 250 ms by each instance that knows of them.
local function is_timed(c)
    return (rule(c, 'opens-at') or (tonumber(rule(c, 'max-admit-per-minute')) or 0) > 0) and 1 or 0
end
