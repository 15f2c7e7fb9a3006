-- The waiting line of one product. Prepended (before fill.lua) to every script that reads or
-- changes the line, so its layout is written once.
--
-- Each user in line holds a ticket, numbered from 1 by 'qg:{pid}:seq'. A sorted set of user ids
-- scored by ticket costs about 126 bytes a waiting user with 16-character ids, and its rank read
-- walks a skiplist that grows with the line. The line is kept in small hashes instead, which
-- Redis stores as compact listpacks (about 60 bytes a user), and a rank is worked out from
-- numbers, so it costs the same at a million waiting as at ten:
--   qg:{pid}:line:<n>       HASH ticket -> user id, for the tickets n*PAGE to n*PAGE+PAGE-1
--   qg:{pid}:tickets:<b>    HASH user id -> ticket; b is the user id's bucket, one of BUCKETS (about
--                           15 users a bucket at a million waiting, so a lookup stays short)
--   qg:{pid}:left           ZSET member ticket, score its position: places given up (a leave)
--                           that the head of the line has not reached yet
--   settings 'head'         the position served next (1 when absent)
-- A ticket's position in line is the ticket itself, except in a scheduled sale's draw: the
-- tickets 'draw_from' to 'draw_to' taken before the opening are placed among themselves by a
-- permutation keyed with a secret seed (see permute). So a user's rank is
--   position - head + 1 - (places given up between the head and them).
-- Closed tabs (abandon-after) are not hunted down: promotion checks each user it reaches and drops
-- those not seen lately, so a place never goes to a closed tab.
--   qg:{pid}:seen:<span>:<n> BITMAP, bit (ticket mod SEEN_WRAP) set when the ticket's holder was
--                           seen between n*span and (n+1)*span ms; span = abandon-after / 4
local PAGE = 128
local BUCKETS = 65536
local SKIP_BUDGET = 500
local SEEN_WRAP = 16777216 -- 2^24 bits, so a seen bitmap never exceeds 2 MB
local DRAW_ROUNDS = 6
local HEARD_RESOLUTION = 1000 -- ms: how stale 'heard_at' may be, so a busy product writes it once a second

-- 'qg:{pid}:settings' -> 'qg:{pid}:', in the same hash slot as every other key of the product
local function prefix_of(settings)
    return string.sub(settings, 1, -9)
end

local function page_of(prefix, ticket)
    return prefix .. 'line:' .. math.floor(ticket / PAGE)
end

-- A script asks for the same user's bucket several times: the hash is worked out once a call.
local buckets = {}

local function bucket_of(prefix, uid)
    local bucket = buckets[uid]
    if not bucket then
        bucket = prefix .. 'tickets:' .. (tonumber(string.sub(redis.sha1hex(uid), 1, 8), 16) % BUCKETS)
        buckets[uid] = bucket
    end
    return bucket
end

local function last_ticket(prefix)
    return tonumber(redis.call('GET', prefix .. 'seq')) or 0
end

-- A keyed pseudorandom permutation of [0, size): a balanced Feistel network on the smallest even
-- number of bits that covers size, applied again until the value lands inside (cycle walking),
-- so it is a bijection of [0, size); the inverse runs the rounds backwards. A round adds
-- SHA1(seed .. ':' .. round .. ':' .. half), read as a number, to the other half: anyone who has
-- the seed (published once the sale opens) can recompute every position.
local function permute(seed, size, x, inverse)
    local bits = 2
    while 2 ^ bits < size do
        bits = bits + 2
    end
    local half = 2 ^ (bits / 2)
    local function round_value(round, value)
        return tonumber(string.sub(redis.sha1hex(seed .. ':' .. round .. ':' .. value), 1, 12), 16) % half
    end
    repeat
        local left, right = math.floor(x / half), x % half
        if inverse then
            for round = DRAW_ROUNDS, 1, -1 do
                left, right = (right - round_value(round, left)) % half, left
            end
        else
            for round = 1, DRAW_ROUNDS do
                left, right = right, (left + round_value(round, right)) % half
            end
        end
        x = left * half + right
    until x < size
    return x
end

-- Drawn positions already worked out in this call, by the draw's last ticket, then ticket: the
-- permutation costs tens of µs, and a call may ask for the same one twice.
local drawn = {}

-- Where a ticket stands in line (before its sale opens, the draw is not known: its ticket).
local function position_of(ticket, c)
    local from, to = tonumber(c.draw_from), tonumber(c.draw_to)
    if to and ticket >= from and ticket <= to then
        drawn[to] = drawn[to] or {}
        local position = drawn[to][ticket]
        if not position then
            position = from + permute(c.seed, to - from + 1, ticket - from, false)
            drawn[to][ticket] = position
        end
        return position
    end
    return ticket
end

local function ticket_at(position, c)
    local from, to = tonumber(c.draw_from), tonumber(c.draw_to)
    if to and position >= from and position <= to then
        return from + permute(c.seed, to - from + 1, position - from, true)
    end
    return position
end

-- The ticket the user holds in line, or nil. Taking a user off the line deletes both their
-- entries, so a bucket entry whose ticket the head has passed is one whose page expired on its own
-- first (see keep): its place is gone. (Its page is not read here: one key less to fetch from
-- memory on every poll, and a page goes first only after all its holders stayed away for the
-- whole idle ttl.)
local function ticket_of(prefix, uid, c)
    local bucket = bucket_of(prefix, uid)
    local ticket = tonumber(redis.call('HGET', bucket, uid))
    if ticket and position_of(ticket, c) < (tonumber(c.head) or 1) then
        redis.call('HDEL', bucket, uid)
        return nil
    end
    return ticket
end

-- Gives the user the next ticket: the back of the line.
local function enqueue(prefix, uid)
    local ticket = redis.call('INCR', prefix .. 'seq')
    redis.call('HSET', page_of(prefix, ticket), ticket, uid)
    redis.call('HSET', bucket_of(prefix, uid), uid, ticket)
    return ticket
end

-- Keeps a user's two line entries as long as the product's other keys: every key of a product
-- expires when nobody has come for a while, and the entries of a user still around must not go
-- before the counter and settings they are read with.
local function keep(prefix, uid, ticket, ttl)
    redis.call('PEXPIRE', page_of(prefix, ticket), ttl)
    redis.call('PEXPIRE', bucket_of(prefix, uid), ttl)
end

-- A key made by a script other than join.lua lives as long as the product's other keys: join.lua
-- renews them all only now and then, and a key made since must not outlive them.
local function inherit_ttl(prefix, key)
    local ttl = redis.call('PTTL', prefix .. 'settings')
    if ttl > 0 then
        redis.call('PEXPIRE', key, ttl)
    end
end

-- How many hold a place in line (closed tabs included, until promotion reaches them).
local function line_length(prefix, c)
    local head = tonumber(c.head) or 1
    return math.max(0, last_ticket(prefix) - head + 1 - redis.call('ZCARD', prefix .. 'left'))
end

-- 1-based: 1 = next in line.
local function rank_of(prefix, ticket, c)
    local position = position_of(ticket, c)
    local head = tonumber(c.head) or 1
    return position - head + 1 - redis.call('ZCOUNT', prefix .. 'left', head, '(' .. position)
end

-- Takes the user out of the line; returns 1 when they held a place there.
local function give_up(prefix, uid, c)
    local ticket = ticket_of(prefix, uid, c)
    if not ticket then
        return 0
    end
    redis.call('HDEL', page_of(prefix, ticket), ticket)
    redis.call('HDEL', bucket_of(prefix, uid), uid)
    redis.call('ZADD', prefix .. 'left', position_of(ticket, c), ticket)
    inherit_ttl(prefix, prefix .. 'left')
    return 1
end

local function seen_span(abandon)
    return math.max(250, math.floor(abandon / 4))
end

-- Every request of someone in line counts as being there (abandon-after). Returns whether this is
-- the holder's first request in the current span (always true without abandon-after), which is
-- when their line entries are kept alive (keep): once a span is enough, and spares Redis the work
-- on every other poll.
local function stamp_seen(prefix, ticket, now, c)
    local abandon = tonumber(c.abandon) or 0
    if abandon <= 0 then
        return true
    end
    local span = seen_span(abandon)
    local key = prefix .. 'seen:' .. span .. ':' .. math.floor(now / span)
    if redis.call('SETBIT', key, ticket % SEEN_WRAP, 1) == 1 then
        return false
    end
    redis.call('PEXPIRE', key, abandon + 2 * span)
    return true
end

-- Notes that someone asked about the product, adding the settings fields to write to 'changes'
-- (written once a second at most). A product nobody asked about for half its abandon-after has
-- been unreachable (a Redis or gateway outage) rather than deserted: everyone in line gets a whole
-- abandon-after again to come back, before promotion judges them.
local function heard(now, c, changes)
    local abandon = tonumber(c.abandon) or 0
    local last = tonumber(c.heard_at)
    if abandon > 0 and last and now - last > abandon / 2 then
        c.seen_since = tostring(now)
        changes[#changes + 1] = 'seen_since'
        changes[#changes + 1] = c.seen_since
    end
    if not last or now - last >= HEARD_RESOLUTION then
        c.heard_at = tostring(now)
        changes[#changes + 1] = 'heard_at'
        changes[#changes + 1] = c.heard_at
    end
end

-- Whether the ticket's holder was seen within abandon-after (give or take a quarter of it, the
-- bitmaps' span). Since 'seen_since' (when the product's abandon-after last changed, or it came
-- back from an outage) everyone has had the whole abandon-after to be seen.
local function seen_lately(prefix, ticket, now, c)
    local abandon = tonumber(c.abandon) or 0
    if abandon <= 0 or now - (tonumber(c.seen_since) or 0) < abandon then
        return true
    end
    local span = seen_span(abandon)
    for slot = math.floor(now / span), math.floor((now - abandon) / span), -1 do
        if redis.call('GETBIT', prefix .. 'seen:' .. span .. ':' .. slot, ticket % SEEN_WRAP) == 1 then
            return true
        end
    end
    return false
end

-- Takes up to 'wanted' users off the head of the line, in order. Places given up are passed
-- over; holders not seen lately lose their place. At most SKIP_BUDGET places are passed over in
-- one call, so a long run of closed tabs never holds Redis: the next call goes on.
local function take(prefix, settings, c, wanted, now)
    local last = last_ticket(prefix)
    local head = tonumber(c.head) or 1
    local taken = {}
    local budget = wanted + SKIP_BUDGET
    while #taken < wanted and head <= last and budget > 0 do
        local ticket = ticket_at(head, c)
        local page = page_of(prefix, ticket)
        local uid = redis.call('HGET', page, ticket)
        if uid then
            redis.call('HDEL', page, ticket)
            local bucket = bucket_of(prefix, uid)
            -- A bucket entry that points elsewhere belongs to a later place of the same user.
            if tonumber(redis.call('HGET', bucket, uid)) == ticket then
                redis.call('HDEL', bucket, uid)
                if seen_lately(prefix, ticket, now, c) then
                    taken[#taken + 1] = uid
                end
            end
        end
        head = head + 1
        budget = budget - 1
    end
    if head ~= (tonumber(c.head) or 1) then
        redis.call('HSET', settings, 'head', head)
        redis.call('ZREMRANGEBYSCORE', prefix .. 'left', '-inf', '(' .. head)
        c.head = head
    end
    return taken
end

-- The first users in line, in order, without changing anything.
local function peek(prefix, c, limit)
    local last = last_ticket(prefix)
    local position = tonumber(c.head) or 1
    local users = {}
    while #users < limit and position <= last do
        local ticket = ticket_at(position, c)
        local uid = redis.call('HGET', page_of(prefix, ticket), ticket)
        if uid then
            users[#users + 1] = uid
        end
        position = position + 1
    end
    return users
end
