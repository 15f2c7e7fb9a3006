-- Enters a user into a product's line, or reports where they already are.
-- Idempotent: a waiting user keeps their ticket, an active user keeps their session (a join
-- never extends it, except an admitted user's first arrival: see fill.lua). A new user takes the
-- next ticket, then free places are filled at once, so someone arriving at an empty product is
-- admitted in this same call. Every call by a user in line counts as being seen (abandon-after).
--
-- Most calls are polls that change nothing, so they write nothing they need not: the rules only
-- when they differ from what is stored, the product's key expiry every KEEP_EVERY at most, the
-- poller's line entries once per seen span.
--
-- KEYS[1] settings HASH   KEYS[2] active ZSET   KEYS[3] ticket counter
-- ARGV[1] user id   ARGV[2] now (epoch ms)   ARGV[3] max-active   ARGV[4] session ttl (ms)
-- ARGV[5] promotion strategy   ARGV[6] idle ttl (ms): how long the product's keys outlive its
-- last visitor, so queues nobody visits any more (or that a hostile client invented) vanish
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
local now, ttl = tonumber(ARGV[2]), tonumber(ARGV[4])
local idle = tonumber(ARGV[6])
local opens, closes = ARGV[7] or '', ARGV[8] or ''
local abandon = tonumber(ARGV[10]) or 0
local arrival = tonumber(ARGV[11]) or 0
if arrival <= 0 then
    arrival = ttl
end
local KEEP_EVERY = math.min(60000, idle / 10)

-- The scheduler and the leave path have no request to read the route from; they use the rules
-- the last join stored. Whoever is in line when abandon-after changes gets the whole new period
-- to be seen.
local c = settings_of(settings)
local changes = {}
-- All of this call's rules in one string: most calls only compare it with the stored one.
local given = table.concat({ ARGV[3], ARGV[4], ARGV[5], opens, ARGV[9], ARGV[10], ARGV[11] }, '|')
if c.rules ~= given then
    local rules = { max = ARGV[3], ttl = tostring(ttl), strategy = ARGV[5], apm = tostring(tonumber(ARGV[9]) or 0),
        abandon = tostring(abandon), arrival = tostring(arrival), opens = opens ~= '' and opens or false,
        rules = given }
    for field, value in pairs(rules) do
        if c[field] ~= value then
            if field == 'abandon' then
                c.seen_since = tostring(now)
                changes[#changes + 1] = 'seen_since'
                changes[#changes + 1] = c.seen_since
            end
            if value then
                changes[#changes + 1] = field
                changes[#changes + 1] = value
            else
                redis.call('HDEL', settings, field)
            end
            c[field] = value
        end
    end
end
heard(now, c, changes)
local renew = not c.kept_at or now - tonumber(c.kept_at) >= KEEP_EVERY
if renew then
    c.kept_at = tostring(now)
    changes[#changes + 1] = 'kept_at'
    changes[#changes + 1] = c.kept_at
end
if #changes > 0 then
    redis.call('HSET', settings, unpack(changes))
end

-- Every KEEP_EVERY, a visit renews all the product's keys together (once they exist, so just
-- before answering): the ticket counter can never reset while anyone waits.
local function answer(result)
    if renew then
        for _, key in ipairs(KEYS) do
            redis.call('PEXPIRE', key, idle)
        end
        redis.call('PEXPIRE', prefix .. 'arriving', idle)
        redis.call('PEXPIRE', prefix .. 'left', idle)
    end
    result[5] = math.floor(admission_rate(c, now) * 1000000)
    return result
end

-- The user is still there: seen, and their line entries kept.
local function present(ticket)
    if stamp_seen(prefix, ticket, now, c) then
        keep(prefix, uid, ticket, idle)
    end
end

if c.mode == 'closed' then
    -- Turned away for now, but still there: whoever has a place keeps it.
    local ticket = ticket_of(prefix, uid, c)
    if ticket then
        present(ticket)
    end
    return answer({-4, 0, 0, 0})
end
local expiry = redis.call('ZSCORE', active, uid)
if expiry and tonumber(expiry) > now then
    arrive(prefix, uid, now, c)
    return answer({1, 0, 0, 0})
end
local enqueued = 0
local ticket = ticket_of(prefix, uid, c)
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
        enqueued = 1
    end
    present(ticket)
    return answer({2, line_length(prefix, c), 0, enqueued})
end
if not ticket then
    ticket = enqueue(prefix, uid)
    enqueued = 1
end
present(ticket)
local promoted = fill(prefix, settings, now, c)
if promoted > 0 and redis.call('ZSCORE', active, uid) then
    -- Admitted by this very request: they have arrived.
    arrive(prefix, uid, now, c)
    return answer({1, 0, promoted, enqueued})
end
return answer({0, rank_of(prefix, ticket, c), promoted, enqueued})
