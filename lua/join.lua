--!include fill.lua
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
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id   2 user id   3 now (epoch ms)   4 max-active   5 session ttl (ms)
--       6 promotion strategy   7 idle ttl (ms): how long the product's keys outlive its last
--       visitor, so queues nobody visits any more (or that a hostile client invented) vanish
--       8 opens-at (epoch ms, '' = always open)   9 closes-at (epoch ms, '' = never)
--       10 max-admit-per-minute (0 = unpaced)   11 abandon-after (ms, 0 = never)
--       12 arrival-ttl (ms, 0 = the session ttl)   13 a seed from a secure random generator,
--       used if this join opens a pre-queue's draw ('' when the product has no opens-at)
--       14 '1' when the request would complete the session (complete-on): an active user must
--       then claim the completion
-- Reply state (STATE), rank (1-based while waiting; in a pre-queue how many are in it; else 0),
--       promoted (users this call admitted), enqueued (1 when this call took a new ticket),
--       rate (admissions per second x 10^6)
local k = script_keys()
local uid = ARGV[2]
local now, ttl = tonumber(ARGV[3]), tonumber(ARGV[5])
local idle = tonumber(ARGV[7])
local opens, closes = ARGV[8], ARGV[9]
local abandon = tonumber(ARGV[11]) or 0
local arrival = tonumber(ARGV[12]) or 0
local completing = ARGV[14] == '1'
if arrival <= 0 then
    arrival = ttl
end
local KEEP_EVERY = math.min(60000, idle / 10)

-- The scheduler and the leave path have no request to read the route from; they use the rules
-- the last join stored. Whoever is in line when abandon-after changes gets the whole new period
-- to be seen.
local c = settings_of(k)
local changes = {}
-- All of this call's rules in one string: most calls only compare it with the stored one.
local given = table.concat({ ARGV[4], ARGV[5], ARGV[6], opens, ARGV[10], ARGV[11], ARGV[12] }, '|')
if c.rules ~= given then
    local rules = { max = ARGV[4], ttl = tostring(ttl), strategy = ARGV[6], apm = tostring(tonumber(ARGV[10]) or 0),
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
                redis.call('HDEL', k.settings, field)
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
    redis.call('HSET', k.settings, unpack(changes))
end

-- Every KEEP_EVERY, a visit renews all the product's keys together (once they exist, so just
-- before answering): the ticket counter can never reset while anyone waits.
local function answer(state, rank, promoted, enqueued)
    if renew then
        for _, key in ipairs({ k.settings, k.active, k.seq, k.arriving, k.left }) do
            redis.call('PEXPIRE', key, idle)
        end
    end
    return { 'state', state, 'rank', rank, 'promoted', promoted, 'enqueued', enqueued, 'rate', rate_reply(c, now) }
end

-- The user is still there: seen, and their line entries kept.
local function present(ticket)
    if stamp_seen(k, ticket, now, c) then
        keep(k, uid, ticket, idle)
    end
end

-- Active: let through, unless this request would complete the session and another one already is.
local function admitted(promoted, enqueued, expiry)
    expiry = arrive(k, uid, now, c, expiry)
    if completing and not claim_completion(k, uid, now, expiry) then
        return answer(STATE.COMPLETING, 0, promoted, enqueued)
    end
    return answer(STATE.ACTIVE, 0, promoted, enqueued)
end

if c.mode == MODE.CLOSED then
    -- Turned away for now, but still there: whoever has a place keeps it.
    local ticket = ticket_of(k, uid, c)
    if ticket then
        present(ticket)
    end
    return answer(STATE.ROOM_CLOSED, 0, 0, 0)
end
local expiry = tonumber(redis.call('ZSCORE', k.active, uid))
if expiry and expiry > now then
    return admitted(0, 0, expiry)
end
local enqueued = 0
local ticket = ticket_of(k, uid, c)
if not ticket then
    if c.draining == '1' then
        return answer(STATE.DRAINING, 0, 0, 0)
    end
    if closes ~= '' and now >= tonumber(closes) then
        return answer(STATE.SALE_ENDED, 0, 0, 0)
    end
end
if c.mode ~= MODE.PASSTHROUGH and not opened(k, now, c, true) then
    if not ticket then
        ticket = pre_queue(k, uid, c, ARGV[13])
        enqueued = 1
    end
    present(ticket)
    return answer(STATE.PRE_QUEUE, line_length(k, c), 0, enqueued)
end
if not ticket then
    ticket = enqueue(k, uid)
    enqueued = 1
end
present(ticket)
local promoted = fill(k, now, c)
if promoted > 0 then
    -- Admitted by this very request: they have arrived.
    expiry = tonumber(redis.call('ZSCORE', k.active, uid))
    if expiry then
        return admitted(promoted, enqueued, expiry)
    end
end
return answer(STATE.WAITING, rank_of(k, ticket, c), promoted, enqueued)
