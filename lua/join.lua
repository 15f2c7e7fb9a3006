-- Enters a user into a product's queue, or reports where they already are.
-- Idempotent: a waiting user keeps their ticket, an active user keeps their session (a join
-- never extends it, except an admitted user's first arrival: see fill.lua). A new user takes the
-- next ticket, then free places are filled at once, so someone arriving at an empty product is
-- admitted in this same call. Every call by a waiting user counts as being seen (abandon-after).
--
-- KEYS[1] wait ZSET   KEYS[2] active ZSET   KEYS[3] ticket counter   KEYS[4] settings HASH
-- ARGV[1] user id   ARGV[2] now (epoch ms)   ARGV[3] max-active   ARGV[4] session ttl (ms)
-- ARGV[5] promotion strategy   ARGV[6] idle ttl (ms): how long the product's keys outlive its
-- last join, so queues nobody visits any more (or that a hostile client invented) vanish
-- ARGV[7] opens-at (epoch ms, '' = always open)   ARGV[8] closes-at (epoch ms, '' = never)
-- ARGV[9] max-admit-per-minute (0 = unpaced)   ARGV[10] abandon-after (ms, 0 = never)
-- ARGV[11] arrival-ttl (ms, 0 = the session ttl)
-- Returns {state, rank, promoted, enqueued, rate}: state 1 = active, 0 = waiting, 2 = in the
-- pre-queue of a sale not yet open (rank = how many are in it), -2 = the queue is draining and
-- takes nobody new, -3 = the sale has closed, -4 = the room is closed; rank is 1-based (0 when
-- active); promoted = fill's result; enqueued = 1 when this call took a new ticket; rate =
-- admissions per second x 10^6.
local wait, active, seq, settings = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local uid = ARGV[1]
local now, max, ttl = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local opens, closes = ARGV[7] or '', ARGV[8] or ''
local apm, abandon = tonumber(ARGV[9]) or 0, tonumber(ARGV[10]) or 0
local arrival = tonumber(ARGV[11]) or 0
if arrival <= 0 then
    arrival = ttl
end

-- The scheduler and the leave path have no request to read the route from; they use these.
redis.call('HSET', settings, 'max', max, 'ttl', ttl, 'strategy', ARGV[5], 'apm', apm, 'abandon', abandon,
    'arrival', arrival)
if opens == '' then
    redis.call('HDEL', settings, 'opens')
else
    redis.call('HSET', settings, 'opens', opens)
end
local c = settings_of(settings)
local seen = prefix_of(active) .. 'seen'

-- Every join refreshes all the product's keys together (once they exist, so just before
-- answering): the ticket counter can never reset while anyone waits.
local function answer(result)
    for _, key in ipairs(KEYS) do
        redis.call('PEXPIRE', key, ARGV[6])
    end
    redis.call('PEXPIRE', seen, ARGV[6])
    redis.call('PEXPIRE', prefix_of(active) .. 'arriving', ARGV[6])
    result[5] = math.floor(admission_rate(settings, now) * 1000000)
    return result
end

local function seen_now()
    if abandon > 0 then
        redis.call('ZADD', seen, now, uid)
    end
end

if c.mode == 'closed' then
    return answer({-4, 0, 0, 0})
end
local expiry = redis.call('ZSCORE', active, uid)
if expiry and tonumber(expiry) > now then
    arrive(active, uid, now, c)
    return answer({1, 0, 0, 0})
end
local enqueued = 0
local queued = redis.call('ZSCORE', wait, uid)
if not queued then
    if c.draining == '1' then
        return answer({-2, 0, 0, 0})
    end
    if closes ~= '' and now >= tonumber(closes) then
        return answer({-3, 0, 0, 0})
    end
end
if not opened(wait, settings, now, c) then
    if not queued then
        redis.call('ZADD', wait, draw_ticket(settings, uid, c), uid)
        enqueued = 1
    end
    seen_now()
    return answer({2, redis.call('ZCARD', wait), 0, enqueued})
end
if not queued then
    redis.call('ZADD', wait, redis.call('INCR', seq), uid)
    enqueued = 1
end
seen_now()
local promoted = fill(wait, active, settings, now, c)
if redis.call('ZSCORE', active, uid) then
    -- Admitted by this very request: they have arrived.
    arrive(active, uid, now, c)
    return answer({1, 0, promoted, enqueued})
end
return answer({0, redis.call('ZRANK', wait, uid) + 1, promoted, enqueued})
