-- Enters a user into a product's line, or reports where they already are.
-- Idempotent: a waiting user keeps their ticket, an active user keeps their session (a join
-- never extends it, except an admitted user's first arrival: see fill.lua). A new user takes the
-- next ticket, then free places are filled at once, so someone arriving at an empty product is
-- admitted in this same call. Every call by a user in line counts as being seen (abandon-after).
--
-- KEYS[1] settings HASH   KEYS[2] active ZSET   KEYS[3] ticket counter
-- ARGV[1] user id   ARGV[2] now (epoch ms)   ARGV[3] max-active   ARGV[4] session ttl (ms)
-- ARGV[5] promotion strategy   ARGV[6] idle ttl (ms): how long the product's keys outlive its
-- last join, so queues nobody visits any more (or that a hostile client invented) vanish
-- ARGV[7] opens-at (epoch ms, '' = always open)   ARGV[8] closes-at (epoch ms, '' = never)
-- ARGV[9] max-admit-per-minute (0 = unpaced)   ARGV[10] abandon-after (ms, 0 = never)
-- ARGV[11] arrival-ttl (ms, 0 = the session ttl)   ARGV[12] a random seed, used if this join
-- opens a pre-queue's draw ('' = take one from Redis's clock)
-- Returns {state, rank, promoted, enqueued, rate}: state 1 = active, 0 = waiting, 2 = in the
-- pre-queue of a sale not yet open (rank = how many are in line), -2 = the queue is draining
-- and takes nobody new, -3 = the sale has closed, -4 = the room is closed; rank is 1-based (0
-- when active); promoted = fill's result; enqueued = 1 when this call took a new ticket; rate =
-- admissions per second x 10^6.
local settings, active = KEYS[1], KEYS[2]
local prefix = prefix_of(settings)
local uid = ARGV[1]
local now, max, ttl = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local idle = ARGV[6]
local opens, closes = ARGV[7] or '', ARGV[8] or ''
local apm, abandon = tonumber(ARGV[9]) or 0, tonumber(ARGV[10]) or 0
local arrival = tonumber(ARGV[11]) or 0
if arrival <= 0 then
    arrival = ttl
end

-- The scheduler and the leave path have no request to read the route from; they use these.
-- Whoever is in line when abandon-after changes gets the whole new period to be seen.
if redis.call('HGET', settings, 'abandon') ~= tostring(abandon) then
    redis.call('HSET', settings, 'seen_since', now)
end
redis.call('HSET', settings, 'max', max, 'ttl', ttl, 'strategy', ARGV[5], 'apm', apm, 'abandon', abandon,
    'arrival', arrival)
if opens == '' then
    redis.call('HDEL', settings, 'opens')
else
    redis.call('HSET', settings, 'opens', opens)
end
local c = settings_of(settings)

-- Every join refreshes the product's keys together (once they exist, so just before answering):
-- the ticket counter can never reset while anyone waits.
local function answer(result, ticket)
    for _, key in ipairs(KEYS) do
        redis.call('PEXPIRE', key, idle)
    end
    redis.call('PEXPIRE', prefix .. 'arriving', idle)
    redis.call('PEXPIRE', prefix .. 'left', idle)
    if ticket then
        keep(prefix, uid, ticket, idle)
    end
    result[5] = math.floor(admission_rate(settings, now) * 1000000)
    return result
end

heard(settings, now, c)
local ticket = ticket_of(prefix, uid)
if ticket then
    stamp_seen(prefix, ticket, now, c)
end
if c.mode == 'closed' then
    -- Turned away for now, but still there: whoever has a place keeps it.
    return answer({-4, 0, 0, 0}, ticket)
end
local expiry = redis.call('ZSCORE', active, uid)
if expiry and tonumber(expiry) > now then
    arrive(prefix, uid, now, c)
    return answer({1, 0, 0, 0})
end
local enqueued = 0
if not ticket then
    if c.draining == '1' then
        return answer({-2, 0, 0, 0})
    end
    if closes ~= '' and now >= tonumber(closes) then
        return answer({-3, 0, 0, 0})
    end
end
if c.mode ~= 'passthrough' and not opened(prefix, settings, now, c) then
    if not ticket then
        ticket = pre_queue(prefix, settings, uid, c, ARGV[12])
        stamp_seen(prefix, ticket, now, c)
        enqueued = 1
    end
    return answer({2, line_length(prefix, c), 0, enqueued}, ticket)
end
if not ticket then
    ticket = enqueue(prefix, uid)
    stamp_seen(prefix, ticket, now, c)
    enqueued = 1
end
local promoted = fill(prefix, settings, now, c)
if redis.call('ZSCORE', active, uid) then
    -- Admitted by this very request: they have arrived.
    arrive(prefix, uid, now, c)
    return answer({1, 0, promoted, enqueued}, ticket)
end
return answer({0, rank_of(prefix, ticket, c), promoted, enqueued}, ticket)
