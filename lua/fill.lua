-- Shared by the scripts that can open places: it is prepended to join.lua, promote.lua,
-- leave.lua and expire.lua when they are loaded, so the promotion rule exists once.
--
-- Drops expired sessions, then moves the head of the wait queue into the active set until
-- max-active is reached. Order is the wait queue's score (a per-product ticket), so promotion
-- is strictly first come, first served. The active ZSET is the only count of admitted users, so
-- no counter can drift from it. Products on keyspace promotion also get one slot key per admitted
-- user with the session's TTL: Redis announces its expiry, which is what promotes the next user.
-- Returns the number of users moved, 0 when there was no free place, -1 when nobody waits.
local function fill(wait, active, now, max, ttl, strategy)
    redis.call('ZREMRANGEBYSCORE', active, '-inf', now)
    local spares = max - redis.call('ZCARD', active)
    if spares <= 0 then
        return 0
    end
    local heads = redis.call('ZRANGE', wait, 0, spares - 1)
    if #heads == 0 then
        return -1
    end
    local expiry = now + ttl
    -- 'qg:{pid}:active' -> 'qg:{pid}:slot:', in the same hash slot as every other product key
    local slots = string.sub(active, 1, -7) .. 'slot:'
    for _, uid in ipairs(heads) do
        redis.call('ZADD', active, expiry, uid)
        redis.call('ZREM', wait, uid)
        if strategy == 'keyspace' then
            redis.call('SET', slots .. uid, '1', 'PX', ttl)
        end
    end
    return #heads
end
