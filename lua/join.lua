-- Enters a user into a product's queue, or reports where they already are.
-- Idempotent: a waiting user keeps their ticket, an active user keeps their session (a join
-- never extends it). A new user takes the next ticket, then free places are filled at once,
-- so someone arriving at an empty product is admitted in this same call.
--
-- KEYS[1] wait ZSET   KEYS[2] active ZSET   KEYS[3] ticket counter   KEYS[4] settings HASH
-- ARGV[1] user id   ARGV[2] now (epoch ms)   ARGV[3] max-active   ARGV[4] session ttl (ms)
-- ARGV[5] promotion strategy   ARGV[6] idle ttl (ms): how long the product's keys outlive its
-- last join, so queues nobody visits any more (or that a hostile client invented) vanish
-- Returns {state, rank, promoted, enqueued, rate}: state 1 = active, 0 = waiting, -2 = the
-- queue is draining and takes nobody new; rank is 1-based (0 when active); promoted = fill's
-- result; enqueued = 1 when this call took a new ticket; rate = admissions per second x 10^6.
local wait, active, seq, settings = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local uid = ARGV[1]
local now, max, ttl = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])

-- The scheduler and the leave path have no request to read the route from; they use these.
redis.call('HSET', settings, 'max', max, 'ttl', ttl, 'strategy', ARGV[5])
-- Every join refreshes all four together (once they exist, so just before answering): the
-- ticket counter can never reset while anyone waits.
local function answer(result)
    for _, key in ipairs(KEYS) do
        redis.call('PEXPIRE', key, ARGV[6])
    end
    result[5] = math.floor(admission_rate(settings, now) * 1000000)
    return result
end

local expiry = redis.call('ZSCORE', active, uid)
if expiry and tonumber(expiry) > now then
    return answer({1, 0, 0, 0})
end
local enqueued = 0
local queued = redis.call('ZSCORE', wait, uid)
if not queued and redis.call('HGET', settings, 'draining') == '1' then
    return answer({-2, 0, 0, 0})
end
if not queued then
    redis.call('ZADD', wait, redis.call('INCR', seq), uid)
    enqueued = 1
end
local promoted = fill(wait, active, settings, now, max, ttl, ARGV[5])
if redis.call('ZSCORE', active, uid) then
    return answer({1, 0, promoted, enqueued})
end
return answer({0, redis.call('ZRANK', wait, uid) + 1, promoted, enqueued})
