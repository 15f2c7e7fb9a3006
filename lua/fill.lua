-- Shared by the scripts that can open places: it is prepended to join.lua, promote.lua,
-- leave.lua, expire.lua and admin.lua when they are loaded, so the promotion rule exists once.
--
-- Drops expired sessions, then moves the head of the wait queue into the active set until
-- max-active is reached. Order is the wait queue's score (a per-product ticket), so promotion
-- is strictly first come, first served. The active ZSET is the only count of admitted users, so
-- no counter can drift from it. Products on keyspace promotion also get one slot key per admitted
-- user with the session's TTL: Redis announces its expiry, which is what promotes the next user.
--
-- Operators steer through the settings HASH (admin.lua): 'max_override' replaces max-active and
-- 'paused' = '1' stops promotion. Each promotion feeds the product's admission rate, an
-- exponentially weighted rate (time constant RATE_TAU_MS) shared by every instance, and is
-- announced on 'qg:admitted:<pid>' (space-separated user ids) so the instance holding a
-- shopper's live connection learns of it without polling.
-- Returns the number of users moved, 0 when there was no free place, -1 when nobody waits.
local RATE_TAU_MS = 60000

local function fill(wait, active, settings, now, max, ttl, strategy)
    local control = redis.call('HMGET', settings, 'max_override', 'paused', 'rate', 'rate_at', 'rate_since')
    if control[1] then
        max = tonumber(control[1])
    end
    redis.call('ZREMRANGEBYSCORE', active, '-inf', now)
    if control[2] == '1' then
        return 0
    end
    local spares = max - redis.call('ZCARD', active)
    if spares <= 0 then
        return 0
    end
    local heads = redis.call('ZRANGE', wait, 0, spares - 1)
    if #heads == 0 then
        return -1
    end
    local expiry = now + ttl
    -- 'qg:{pid}:active' -> 'qg:{pid}:', in the same hash slot as every other product key
    local prefix = string.sub(active, 1, -7)
    for _, uid in ipairs(heads) do
        redis.call('ZADD', active, expiry, uid)
        redis.call('ZREM', wait, uid)
        if strategy == 'keyspace' then
            redis.call('SET', prefix .. 'slot:' .. uid, '1', 'PX', ttl)
        end
    end
    local rate, at = tonumber(control[3]) or 0, tonumber(control[4]) or now
    rate = rate * math.exp(-math.max(0, now - at) / RATE_TAU_MS) + #heads * 1000 / RATE_TAU_MS
    redis.call('HSET', settings, 'rate', tostring(rate), 'rate_at', now, 'rate_since', control[5] or now)
    redis.call('PUBLISH', 'qg:admitted:' .. string.sub(prefix, 5, -3), table.concat(heads, ' '))
    return #heads
end

-- fill() with the settings the last join stored. Returns fill's result and the strategy, or nil
-- when the product has no settings (never joined, or its keys expired).
local function refill(wait, active, settings, now)
    local conf = redis.call('HMGET', settings, 'max', 'ttl', 'strategy')
    if not conf[1] then
        return nil, nil
    end
    return fill(wait, active, settings, now, tonumber(conf[1]), tonumber(conf[2]), conf[3]), conf[3]
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
