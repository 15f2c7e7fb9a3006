-- Shared by the scripts that can open places: it is prepended (after line.lua) to join.lua,
-- promote.lua, due.lua, leave.lua, expire.lua and admin.lua when they are loaded, so the
-- promotion rule exists once.
--
-- Counts the unexpired sessions and, when there is room, drops the expired ones and moves users
-- from the head of the line (line.lua) into the active set until max-active is reached: strictly
-- first come, first served. The active ZSET (score =
-- session expiry) is the only count of admitted users, so no counter can drift from it. Products
-- on keyspace promotion also get one slot key per admitted user with the session's TTL: Redis
-- announces its expiry, which is what promotes the next user.
--
-- The settings HASH holds the route's rules as the last join stored them (max, ttl, strategy,
-- opens, apm, abandon, arrival) and the operator's levers (admin.lua): 'max_override' replaces
-- max-active, 'mode' is the room mode (absent = queue; 'queue-all' stops promotion,
-- 'passthrough' admits everyone, 'closed' turns everyone away). Each promotion feeds the
-- product's admission rate, an exponentially weighted rate (time constant RATE_TAU_MS) shared by
-- every instance, and is announced on 'qg:admitted:<pid>' (space-separated user ids) so the
-- instance holding a shopper's live connection learns of it without polling.
--
-- Drops (opens-at): nobody is admitted before opening. The first pre-queue join draws a seed
-- from Redis's clock and records its first ticket ('draw_from'); the opening records the last
-- ('draw_to'), and from then on those tickets stand in line in the order of a permutation keyed
-- by the seed (line.lua), which is kept secret until then: a fair draw, fixed once and
-- atomically, that anyone can recompute afterwards. Everyone drawn is ahead of everyone who joins
-- after opening. Drawing costs nothing at opening time: positions are computed when needed.
--
-- Arrival (arrival-ttl): a promoted user first gets a session of 'arrival' ms and an entry in
-- 'qg:{pid}:arriving'; their first request through the gateway extends it to the full session.
-- Pace (max-admit-per-minute): admissions are spaced 60000 / apm ms apart, by a virtual next-
-- admission time 'admit_at' in the HASH, shared by every instance; at most one second's worth is
-- ever let in at once.
-- fill returns the number of users moved, 0 when there was no free place (or no admission is
-- due), -1 when nobody waits.
local RATE_TAU_MS = 60000
local PASSTHROUGH_BATCH = 1000

-- The settings HASH as a table; absent fields are false. HGETALL, not HMGET of the fields: the
-- hash is a small listpack, read in one pass, and most fields are absent most of the time.
local function settings_of(settings)
    local values = redis.call('HGETALL', settings)
    local c = setmetatable({}, { __index = function()
        return false
    end })
    for i = 1, #values, 2 do
        c[values[i]] = values[i + 1]
    end
    return c
end

-- Whether the product's sale has opened (always, without opens-at). The first call after
-- opens-at records the opening and closes a pending draw at the last ticket taken: from now on
-- the draw's tickets stand in the order of its permutation, and places given up in the
-- pre-queue, noted by ticket until now, are noted by position. Without settings (a read that
-- must not write) nothing is recorded.
local function opened(prefix, settings, now, c)
    local opens = tonumber(c.opens)
    if not opens then
        return true
    end
    if now < opens then
        return false
    end
    if c.opened ~= c.opens and settings then
        local from = tonumber(c.draw_from)
        if from and not c.draw_to then
            local to = last_ticket(prefix)
            c.draw_to = tostring(to)
            local left = prefix .. 'left'
            for _, ticket in ipairs(redis.call('ZRANGEBYSCORE', left, from, to)) do
                redis.call('ZADD', left, position_of(tonumber(ticket), c), ticket)
            end
            redis.call('HSET', settings, 'draw_to', c.draw_to)
        end
        redis.call('HSET', settings, 'opened', c.opens)
        c.opened = c.opens
    end
    return true
end

-- A ticket in the pre-queue of a sale not yet open. The first one opens a draw: the seed the
-- gateway drew at random ('seed'; Redis's clock when none is given), kept secret until the
-- opening, and the draw's first ticket. A sale moved before it opened keeps its pending draw. A
-- product that opens again before the crowd of its last draw got through draws nobody: newcomers
-- queue behind that crowd.
local function pre_queue(prefix, settings, uid, c, seed)
    local to = tonumber(c.draw_to)
    if not c.draw_from or (to and (tonumber(c.head) or 1) > to) then
        if not seed or seed == '' then
            local time = redis.call('TIME')
            seed = time[1] .. string.format('%06d', tonumber(time[2]))
        end
        c.seed = seed
        c.draw_from, c.draw_to = tostring(last_ticket(prefix) + 1), false
        redis.call('HSET', settings, 'seed', c.seed, 'draw_from', c.draw_from)
        redis.call('HDEL', settings, 'draw_to')
    end
    return enqueue(prefix, uid)
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

local function fill(prefix, settings, now, c)
    local active = prefix .. 'active'
    -- Passthrough forwards everyone: no opening to wait for, no pace to keep.
    local passthrough = c.mode == 'passthrough'
    local open = opened(prefix, settings, now, c)
    if (not open and not passthrough) or c.mode == 'queue-all' or c.mode == 'closed' then
        return line_length(prefix, c) > 0 and 0 or -1
    end
    local spares, interval, next_at
    if passthrough then
        spares = PASSTHROUGH_BATCH
    else
        -- Unexpired sessions only; the expired ones are dropped below, once there is room to fill.
        spares = (tonumber(c.max_override) or tonumber(c.max)) - redis.call('ZCOUNT', active, '(' .. now, '+inf')
        if spares <= 0 then
            return 0
        end
        spares, interval, next_at = due_admissions(now, c, spares)
        if spares <= 0 then
            return line_length(prefix, c) > 0 and 0 or -1
        end
    end
    redis.call('ZREMRANGEBYSCORE', active, '-inf', now)
    local heads = take(prefix, settings, c, spares, now)
    if #heads == 0 then
        return line_length(prefix, c) > 0 and 0 or -1
    end
    local arriving = prefix .. 'arriving'
    -- Arrival deadlines of sessions that have ended are of no use any more.
    redis.call('ZREMRANGEBYSCORE', arriving, '-inf', now)
    local ttl = tonumber(c.ttl)
    local first = math.min(tonumber(c.arrival) or ttl, ttl)
    local expiry = now + first
    for _, uid in ipairs(heads) do
        redis.call('ZADD', active, expiry, uid)
        if first < ttl then
            redis.call('ZADD', arriving, expiry, uid)
        end
        if c.strategy == 'keyspace' then
            redis.call('SET', prefix .. 'slot:' .. uid, '1', 'PX', first)
        end
    end
    inherit_ttl(prefix, active)
    if first < ttl then
        inherit_ttl(prefix, arriving)
    end
    if interval then
        c.admit_at = tostring(next_at + #heads * interval)
        redis.call('HSET', settings, 'admit_at', c.admit_at)
    end
    local rate, at = tonumber(c.rate) or 0, tonumber(c.rate_at) or now
    rate = rate * math.exp(-math.max(0, now - at) / RATE_TAU_MS) + #heads * 1000 / RATE_TAU_MS
    c.rate, c.rate_at, c.rate_since = tostring(rate), tostring(now), c.rate_since or tostring(now)
    redis.call('HSET', settings, 'rate', c.rate, 'rate_at', c.rate_at, 'rate_since', c.rate_since)
    redis.call('PUBLISH', 'qg:admitted:' .. string.sub(prefix, 5, -3), table.concat(heads, ' '))
    return #heads
end

-- An admitted user's first request: their short arrival session becomes the full one.
local function arrive(prefix, uid, now, c)
    if redis.call('ZREM', prefix .. 'arriving', uid) == 0 then
        return
    end
    local ttl = tonumber(c.ttl)
    redis.call('ZADD', prefix .. 'active', now + ttl, uid)
    if c.strategy == 'keyspace' then
        redis.call('SET', prefix .. 'slot:' .. uid, '1', 'PX', ttl)
    end
end

-- fill() with the settings the last join stored. Returns fill's result and the strategy, or nil
-- when the product has no settings (never joined, or its keys expired).
local function refill(settings, now)
    local c = settings_of(settings)
    if not c.max then
        return nil, nil
    end
    return fill(prefix_of(settings), settings, now, c), c.strategy
end

-- The admission rate (users per second) as of now, from the settings read, for wait estimates;
-- 0 while none is known (fewer than RATE_WARMUP_MS of history). An average that starts from zero underrates the pace
-- at first, by a factor 1 - e^(-age/tau); dividing by it makes early estimates honest.
local RATE_WARMUP_MS = 5000

local function admission_rate(c, now)
    if not c.rate then
        return 0
    end
    local age = now - tonumber(c.rate_since)
    if age < RATE_WARMUP_MS then
        return 0
    end
    local rate = tonumber(c.rate) * math.exp(-math.max(0, now - tonumber(c.rate_at)) / RATE_TAU_MS)
    return rate / (1 - math.exp(-age / RATE_TAU_MS))
end

-- When the product may next have a promotion due, after fill() has run at 'now': -1 when it never
-- will without a new event (nobody waits, or an operator stopped promotion: joins and operator
-- actions mark the product due again). Used by the safety net's index of due products.
local function next_due(prefix, now, c)
    if line_length(prefix, c) == 0 or c.mode == 'queue-all' or c.mode == 'closed' then
        return -1
    end
    if c.mode == 'passthrough' then
        return now + 1
    end
    if not opened(prefix, nil, now, c) then
        return tonumber(c.opens)
    end
    local admitted = redis.call('ZCARD', prefix .. 'active')
    if admitted < (tonumber(c.max_override) or tonumber(c.max)) then
        -- Places are free and people wait: only the pace (or a run of closed tabs) holds them back.
        return math.ceil(tonumber(c.admit_at) or now + 1)
    end
    local first = redis.call('ZRANGE', prefix .. 'active', 0, 0, 'WITHSCORES')
    return tonumber(first[2])
end
