-- Shared by the scripts that can open places: it is prepended to join.lua, promote.lua,
-- leave.lua, expire.lua and admin.lua when they are loaded, so the promotion rule exists once.
--
-- Drops expired sessions, then moves the head of the wait queue into the active set until
-- max-active is reached. Order is the wait queue's score (a per-product ticket), so promotion
-- is strictly first come, first served. The active ZSET is the only count of admitted users, so
-- no counter can drift from it. Products on keyspace promotion also get one slot key per admitted
-- user with the session's TTL: Redis announces its expiry, which is what promotes the next user.
--
-- The settings HASH holds the route's rules as the last join stored them (max, ttl, strategy,
-- opens, closes, apm, abandon, arrival) and the operator's levers (admin.lua): 'max_override'
-- replaces max-active, 'mode' is the room mode (absent = queue; 'queue-all' stops promotion,
-- 'passthrough' admits everyone, 'closed' turns everyone away). Each promotion feeds the
-- product's admission rate, an exponentially weighted rate (time constant RATE_TAU_MS) shared by
-- every instance, and is announced on 'qg:admitted:<pid>' (space-separated user ids) so the
-- instance holding a shopper's live connection learns of it without polling.
--
-- Drops (opens-at): nobody is admitted before opening. Whoever joins before it is placed by
-- SHA1(seed .. ':' .. user id), a fair draw whose seed comes from Redis's clock and is kept in the
-- HASH, so anyone holding the seed and the list can recompute the order; everyone drawn is ahead
-- of everyone who joins after opening. Drawing each ticket at join time gives the order a single
-- shuffle at opening would, without holding Redis at the busiest moment of the sale (a draw of
-- 100,000 in one script took half a second).
--
-- Abandoned waiters (abandon-after): every poll stamps the waiter in 'qg:{pid}:seen' (ZSET, score
-- = last seen ms); whoever was not seen for 'abandon' ms is removed before places are handed out.
-- Arrival (arrival-ttl): a promoted user first gets a session of 'arrival' ms and an entry in
-- 'qg:{pid}:arriving'; their first request through the gateway extends it to the full session.
-- Pace (max-admit-per-minute): admissions are spaced 60000 / apm ms apart, by a virtual next-
-- admission time 'admit_at' in the HASH, shared by every instance; at most one second's worth is
-- ever let in at once.
-- Returns the number of users moved, 0 when there was no free place (or no admission is due),
-- -1 when nobody waits.
local RATE_TAU_MS = 60000
local PASSTHROUGH_BATCH = 1000
local ABANDONED_BATCH = 500
local DRAW_OFFSET = 9007199254740992 -- 2^53

local SETTINGS_FIELDS = { 'max', 'ttl', 'strategy', 'opens', 'closes', 'apm', 'abandon', 'arrival',
    'max_override', 'mode', 'draining', 'opened', 'seed', 'seed_for', 'admit_at', 'rate', 'rate_at', 'rate_since' }

-- The settings HASH as a table; absent fields are false.
local function settings_of(settings)
    local values = redis.call('HMGET', settings, unpack(SETTINGS_FIELDS))
    local c = {}
    for i = 1, #SETTINGS_FIELDS do
        c[SETTINGS_FIELDS[i]] = values[i]
    end
    return c
end

-- 'qg:{pid}:active' -> 'qg:{pid}:', in the same hash slot as every other product key
local function prefix_of(active)
    return string.sub(active, 1, -7)
end

-- Whether the product's sale has opened (always, without opens-at). The first call after
-- opens-at records the opening: the opens-at it was, the seed of its draw and how many it placed.
local function opened(wait, settings, now, c)
    local opens = tonumber(c.opens)
    if not opens then
        return true
    end
    if now < opens then
        return false
    end
    if c.opened ~= c.opens and settings then
        redis.call('HSET', settings, 'opened', c.opens, 'prequeued', redis.call('ZCOUNT', wait, '-inf', '(0'))
        c.opened = c.opens
    end
    return true
end

-- A pre-queued user's ticket: the first 52 bits of SHA1(seed .. ':' .. uid), shifted into
-- [-2^53, -2^52) so that it is exact in a double and ahead of every ticket taken after opening
-- (those count up from 1). The seed is drawn from Redis's clock by the first pre-queue join of
-- each opens-at and only shown once the sale has opened.
local function draw_ticket(settings, uid, c)
    local seed = c.seed
    if not seed or c.seed_for ~= c.opens then
        local time = redis.call('TIME')
        seed = time[1] .. string.format('%06d', tonumber(time[2]))
        redis.call('HSET', settings, 'seed', seed, 'seed_for', c.opens)
        c.seed, c.seed_for = seed, c.opens
    end
    -- Formatted by hand: Lua would print the number with 14 digits and lose the last ones.
    return string.format('%.0f', tonumber(string.sub(redis.sha1hex(seed .. ':' .. uid), 1, 13), 16) - DRAW_OFFSET)
end

-- Removes waiters nobody has seen for abandon-after, a batch per call.
local function drop_abandoned(wait, seen, now, c)
    local abandon = tonumber(c.abandon) or 0
    if abandon <= 0 then
        return
    end
    local gone = redis.call('ZRANGEBYSCORE', seen, '-inf', now - abandon, 'LIMIT', 0, ABANDONED_BATCH)
    if #gone > 0 then
        redis.call('ZREM', wait, unpack(gone))
        redis.call('ZREM', seen, unpack(gone))
    end
end

-- How many admissions max-admit-per-minute allows now (at most 'wanted'), and the pace's
-- interval in ms; nil when the product is not paced.
local function due_admissions(now, c, wanted)
    local apm = tonumber(c.apm) or 0
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

local function fill(wait, active, settings, now, c)
    local prefix = prefix_of(active)
    redis.call('ZREMRANGEBYSCORE', active, '-inf', now)
    redis.call('ZREMRANGEBYSCORE', prefix .. 'arriving', '-inf', now)
    drop_abandoned(wait, prefix .. 'seen', now, c)
    if not opened(wait, settings, now, c) or c.mode == 'queue-all' or c.mode == 'closed' then
        return redis.call('EXISTS', wait) == 1 and 0 or -1
    end
    local spares
    if c.mode == 'passthrough' then
        spares = PASSTHROUGH_BATCH
    else
        spares = (tonumber(c.max_override) or tonumber(c.max)) - redis.call('ZCARD', active)
    end
    if spares <= 0 then
        return 0
    end
    local interval, next_at
    spares, interval, next_at = due_admissions(now, c, spares)
    if spares <= 0 then
        return redis.call('EXISTS', wait) == 1 and 0 or -1
    end
    local heads = redis.call('ZRANGE', wait, 0, spares - 1)
    if #heads == 0 then
        return -1
    end
    local ttl = tonumber(c.ttl)
    local first = math.min(tonumber(c.arrival) or ttl, ttl)
    local expiry = now + first
    for _, uid in ipairs(heads) do
        redis.call('ZADD', active, expiry, uid)
        if first < ttl then
            redis.call('ZADD', prefix .. 'arriving', expiry, uid)
        end
        if c.strategy == 'keyspace' then
            redis.call('SET', prefix .. 'slot:' .. uid, '1', 'PX', first)
        end
    end
    redis.call('ZREM', wait, unpack(heads))
    redis.call('ZREM', prefix .. 'seen', unpack(heads))
    if interval then
        redis.call('HSET', settings, 'admit_at', tostring(next_at + #heads * interval))
    end
    local rate, at = tonumber(c.rate) or 0, tonumber(c.rate_at) or now
    rate = rate * math.exp(-math.max(0, now - at) / RATE_TAU_MS) + #heads * 1000 / RATE_TAU_MS
    redis.call('HSET', settings, 'rate', tostring(rate), 'rate_at', now, 'rate_since', c.rate_since or now)
    redis.call('PUBLISH', 'qg:admitted:' .. string.sub(prefix, 5, -3), table.concat(heads, ' '))
    return #heads
end

-- An admitted user's first request: their short arrival session becomes the full one.
local function arrive(active, uid, now, c)
    local prefix = prefix_of(active)
    if redis.call('ZREM', prefix .. 'arriving', uid) == 0 then
        return
    end
    local ttl = tonumber(c.ttl)
    redis.call('ZADD', active, now + ttl, uid)
    if c.strategy == 'keyspace' then
        redis.call('SET', prefix .. 'slot:' .. uid, '1', 'PX', ttl)
    end
end

-- fill() with the settings the last join stored. Returns fill's result and the strategy, or nil
-- when the product has no settings (never joined, or its keys expired).
local function refill(wait, active, settings, now)
    local c = settings_of(settings)
    if not c.max then
        return nil, nil
    end
    return fill(wait, active, settings, now, c), c.strategy
end

-- The admission rate (users per second) as of now, for wait estimates; 0 while none is known
-- (fewer than RATE_WARMUP_MS of history). An average that starts from zero underrates the pace
-- at first, by a factor 1 - e^(-age/tau); dividing by it makes early estimates honest.
local RATE_WARMUP_MS = 5000

local function admission_rate(settings, now)
    local state = redis.call('HMGET', settings, 'rate', 'rate_at', 'rate_since')
    if not state[1] then
        return 0
    end
    local age = now - tonumber(state[3])
    if age < RATE_WARMUP_MS then
        return 0
    end
    local rate = tonumber(state[1]) * math.exp(-math.max(0, now - tonumber(state[2])) / RATE_TAU_MS)
    return rate / (1 - math.exp(-age / RATE_TAU_MS))
end

-- When the product may next have a promotion due, after fill() has run at 'now': -1 when it never
-- will without a new event (nobody waits, or an operator stopped promotion: joins and operator
-- actions mark the product due again). Used by the safety net's index of due products.
local function next_due(wait, active, settings, now, c)
    if redis.call('EXISTS', wait) == 0 or c.mode == 'queue-all' or c.mode == 'closed' then
        return -1
    end
    if not opened(wait, nil, now, c) then
        return tonumber(c.opens)
    end
    if c.mode == 'passthrough' then
        return now + 1
    end
    local admitted = redis.call('ZCARD', active)
    if admitted < (tonumber(c.max_override) or tonumber(c.max)) then
        -- Places are free and people wait: only the pace holds them back.
        return math.ceil(tonumber(redis.call('HGET', settings, 'admit_at')) or now + 1)
    end
    local first = redis.call('ZRANGE', active, 0, 0, 'WITHSCORES')
    return tonumber(first[2])
end
