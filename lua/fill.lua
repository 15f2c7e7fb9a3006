-- Shared by the scripts that can open places: it is prepended to join.lua, promote.lua and
-- leave.lua when they are loaded, so the promotion rule exists once.
--
-- Drops expired sessions, then moves the head of the wait queue into the active set until
-- max-active is reached. Order is the wait queue's score (a per-product ticket), so promotion
-- is strictly first come, first served.
-- Returns the number of users moved, 0 when there was no free place, -1 when nobody waits.
local function fill(wait, active, now, max, ttl)
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
    for _, uid in ipairs(heads) do
        redis.call('ZADD', active, expiry, uid)
        redis.call('ZREM', wait, uid)
    end
    return #heads
end
