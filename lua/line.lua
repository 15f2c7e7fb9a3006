--!include keys.lua
--!include rules.lua
-- The waiting line of one product, written once for every script that reads or changes it.
--
-- Each user in line holds a ticket, numbered from 1 by the counter k.seq. A sorted set of user
-- ids scored by ticket costs about 126 bytes a waiting user with 16-character ids, and its rank
-- read walks a skiplist that grows with the line. The line is kept in small hashes instead, which
-- Redis stores as compact listpacks (about 60 bytes a user), and a rank is worked out from
-- numbers, so it costs the same at a million waiting as at ten:
--   k:page(n)        HASH ticket -> user id, for the tickets n*PAGE to n*PAGE+PAGE-1
--   k:bucket(b)      HASH user id -> ticket; b is the user id's bucket, one of BUCKETS (about
--                    15 users a bucket at a million waiting, so a lookup stays short)
--   k.left           ZSET member ticket, score its position: places given up (a leave) that the
--                    head of the line has not reached yet
--   settings 'head'  the position served next (1 when absent)
-- A ticket's position in line is the ticket itself, except in a scheduled sale's draw: the
-- tickets 'draw_from' to 'draw_to' taken before the opening are placed among themselves by a
-- permutation keyed with a secret seed (see permute). So a user's rank is
--   position - head + 1 - (places given up between the head and them).
-- Closed tabs (abandon-after) are not hunted down: promotion checks each user it reaches and drops
-- those not seen lately, so a place never goes to a closed tab.
--   k:seen(span, n)  BITMAP, bit (ticket mod SEEN_WRAP) set when the ticket's holder was seen
--                    between n*span and (n+1)*span ms; span = abandon-after / 4
local PAGE = 128
local BUCKETS = 65536
local SKIP_BUDGET = 500
local SEEN_WRAP = 16777216 -- 2^24 bits, so a seen bitmap never exceeds 2 MB
local DRAW_ROUNDS = 6

-- Key names a call asks for more than once are made once a call: building a string costs Redis
-- more than most commands do, and a call that enters many users fills a page or two. (Per line:
-- the invited line has pages and buckets of its own.)
local pages = {}

local function page_of(k, ticket)
    local n = math.floor(ticket / PAGE)
    local of_line = pages[k.prefix]
    if not of_line then
        of_line = {}
        pages[k.prefix] = of_line
    end
    local page = of_line[n]
    if not page then
        page = k:page(n)
        of_line[n] = page
    end
    return page
end

-- A script asks for the same user's bucket several times: the hash is worked out once a call.
local buckets = {}
-- User id -> bucket number, as the gateway worked it out (QueueKeys.bucketOf: the same hash, which
-- costs Redis more than any command a join makes); a user not given here is hashed in Redis. Kept
-- as the text given: Lua turns a number into text with a printf, dearer than a command.
local given_buckets = {}

local function give_bucket(uid, b)
    -- Digits only and no leading zero: the text is the key's, so '061693' would not be 61693's.
    if type(b) ~= 'string' or not (b == '0' or string.find(b, '^[1-9]%d*$')) or tonumber(b) >= BUCKETS then
        error('a bucket is a whole number below ' .. BUCKETS .. ', not ' .. tostring(b))
    end
    given_buckets[uid] = b
end

local function bucket_of(k, uid)
    local of_line = buckets[k.prefix]
    if not of_line then
        of_line = {}
        buckets[k.prefix] = of_line
    end
    local bucket = of_line[uid]
    if not bucket then
        bucket = k:bucket(given_buckets[uid] or tonumber(string.sub(redis.sha1hex(uid), 1, 8), 16) % BUCKETS)
        of_line[uid] = bucket
    end
    return bucket
end

-- A join call defers the writes its users share (the ticket counter, the line's pages, the seen
-- bitmaps) and makes each once, together, before anything reads them back (a fill takes users off
-- the pages) and before it answers (flush_line_writes): a storm's new user then costs Redis its
-- own bucket entry and a few reads instead of eight commands. Other scripts write at once.
local deferring = false
-- Per line (k.prefix): { seq = the counter's key, last = the last ticket handed out, dirty = not written yet }
local pending_last = {}
-- Page key -> { ticket, user id, ... } to write; the keys in the order first written.
local pending_pages, pending_page_keys = {}, {}
-- How long the pages a deferring call writes live (keep's ttl): each is given it when written,
-- since a page may be new, or emptied and deleted by a fill of the same call and made again.
local deferred_ttl = nil
-- Seen bitmap key -> { tickets = { ticket -> true }, order = { ticket, ... }, expire = ms or nil,
-- marker, field, c }: the marks of users seen by this call, unless a fill of the same call admits them.
local pending_seen = {}

local function defer_line_writes(ttl)
    deferring = true
    deferred_ttl = ttl
end

local function last_ticket(k)
    local pending = pending_last[k.prefix]
    if pending then
        return pending.last
    end
    return tonumber(redis.call('GET', k.seq)) or 0
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

-- Drawn positions already worked out in this call, by the draw, then ticket: the permutation
-- costs tens of microseconds, and a call may ask for the same one twice.
local drawn = {}

-- Where a ticket stands in line (before its sale opens, the draw is not known: its ticket).
local function position_of(ticket, c)
    local from, to = tonumber(c.draw_from), tonumber(c.draw_to)
    if to and ticket >= from and ticket <= to then
        local draw = from .. ':' .. to
        drawn[draw] = drawn[draw] or {}
        local position = drawn[draw][ticket]
        if not position then
            position = from + permute(c.seed, to - from + 1, ticket - from, false)
            drawn[draw][ticket] = position
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
local function ticket_of(k, uid, c)
    local bucket = bucket_of(k, uid)
    local ticket = tonumber(redis.call('HGET', bucket, uid))
    if ticket and position_of(ticket, c) < (tonumber(c.head) or 1) then
        redis.call('HDEL', bucket, uid)
        return nil
    end
    return ticket
end

-- Ticket -> its text, for the tickets a deferring call hands out: the bucket entry, the page and
-- the seen mark each need it, and a number becomes text by a printf, dearer than a command.
local ticket_texts = {}

-- The counter of a deferring call's line: read once, advanced in memory, written when flushed.
local function pending_of(k)
    local pending = pending_last[k.prefix]
    if not pending then
        pending = { seq = k.seq, last = tonumber(redis.call('GET', k.seq)) or 0 }
        pending_last[k.prefix] = pending
    end
    return pending
end

-- A deferring call hands out the next ticket: the counter and the page are written later.
local function take_next_ticket(k, uid)
    local pending = pending_of(k)
    pending.last = pending.last + 1
    pending.dirty = true
    local ticket = pending.last
    local written = ticket_texts[ticket] or tostring(ticket)
    ticket_texts[ticket] = written
    local page = page_of(k, ticket)
    local fields = pending_pages[page]
    if not fields then
        fields = {}
        pending_pages[page] = fields
        pending_page_keys[#pending_page_keys + 1] = page
    end
    fields[#fields + 1] = written
    fields[#fields + 1] = uid
    return ticket
end

-- Gives the user the next ticket: the back of the line. The bucket entry is written at once (a
-- second request of the same user in the same call must find it); a deferring call writes the
-- counter and the page later.
local function enqueue(k, uid)
    if not deferring then
        local ticket = redis.call('INCR', k.seq)
        local written = tostring(ticket)
        redis.call('HSET', page_of(k, ticket), written, uid)
        redis.call('HSET', bucket_of(k, uid), uid, written)
        return ticket
    end
    local ticket = take_next_ticket(k, uid)
    redis.call('HSET', bucket_of(k, uid), uid, ticket_texts[ticket])
    return ticket
end

-- For a deferring call, a user with no entry in the line's buckets: one command both finds that
-- out and writes the entry of the next ticket (a new user in a storm costs one bucket command, not
-- a read and a write). Returns the ticket, not yet taken (take_reserved takes it, or
-- drop_reserved undoes the entry when something refuses the place after all); nil, with nothing
-- written, when the bucket holds the user, perhaps with a ticket the head has passed (ticket_of
-- tells).
local function reserve_ticket(k, uid)
    local ticket = pending_of(k).last + 1
    local written = ticket_texts[ticket] or tostring(ticket)
    ticket_texts[ticket] = written
    if redis.call('HSETNX', bucket_of(k, uid), uid, written) == 0 then
        return nil
    end
    return ticket
end

local function take_reserved(k, uid, ticket)
    if take_next_ticket(k, uid) ~= ticket then
        error('a reserved ticket is taken before any other')
    end
end

local function drop_reserved(k, uid)
    redis.call('HDEL', bucket_of(k, uid), uid)
end

-- Keeps a user's two line entries as long as the product's other keys: every key of a product
-- expires when nobody has come for a while, and the entries of a user still around must not go
-- before the counter and settings they are read with. Run whenever a user in line reaches Redis
-- itself: the gateway answers their other polls from its own view of the line, and sends them to
-- Redis at least every time their token is signed again (at most half the token's lifetime), well
-- inside the idle ttl (the token's lifetime and a session more).
-- A page or bucket is kept once a call, however many of its users the call keeps.
local kept = {}

local function keep(k, uid, ticket, ttl)
    local page = page_of(k, ticket)
    -- A page this call has yet to write is given its ttl when it is written.
    if not kept[page] then
        kept[page] = true
        if not pending_pages[page] then
            redis.call('PEXPIRE', page, ttl)
        end
    end
    local bucket = bucket_of(k, uid)
    if not kept[bucket] then
        kept[bucket] = true
        redis.call('PEXPIRE', bucket, ttl)
    end
end

-- A key made by a script other than join.lua lives as long as the product's other keys: join.lua
-- renews them all only now and then, and a key made since must not outlive them.
local function inherit_ttl(k, key)
    local ttl = redis.call('PTTL', k.settings)
    if ttl > 0 then
        redis.call('PEXPIRE', key, ttl)
    end
end

-- How many hold a place in line (closed tabs included, until promotion reaches them).
local function line_length(k, c)
    local head = tonumber(c.head) or 1
    return math.max(0, last_ticket(k) - head + 1 - redis.call('ZCARD', k.left))
end

-- 1-based: 1 = next in line.
local function rank_of(k, ticket, c)
    local position = position_of(ticket, c)
    local head = tonumber(c.head) or 1
    return position - head + 1 - redis.call('ZCOUNT', k.left, head, '(' .. position)
end

-- The invited line (invites: priority): a second line of the same layout, under the keys of
-- k.invited and the settings fields 'invited_*', served before the main line, so every invited
-- shopper stands ahead of every uninvited one and each line keeps its own order. Its draw (a
-- sale's pre-queue) opens and closes with the main line's, with the same seed. The settings field
-- 'invited' marks a product that has ever had one: the others never look for it. Every function
-- of this file works on either line, given the line's keys and its view of the settings: c as
-- the invited line reads it, its own fields and the product's others.
local invited_views = {}

local function invited_line(k, c)
    local ci = invited_views[c]
    if not ci then
        ci = setmetatable({}, {
            __index = function(_, name)
                return c[INVITED_FIELDS[name] or name]
            end,
            __newindex = function(_, name, value)
                c[INVITED_FIELDS[name] or name] = value
            end,
        })
        invited_views[c] = ci
    end
    return k.invited, ci
end

-- Where the user holds a place: the line's keys, its settings and the ticket; nil when nowhere.
local function place_of(k, uid, c)
    local ticket = ticket_of(k, uid, c)
    if ticket then
        return k, c, ticket
    end
    if c.invited then
        local ki, ci = invited_line(k, c)
        ticket = ticket_of(ki, uid, ci)
        if ticket then
            return ki, ci, ticket
        end
    end
    return nil
end

-- How many places reclaimed after a loss wait in k.returning, ahead of both lines (fill.lua's
-- reclaim); the settings field 'returning' marks a product that has any, so others never look.
local function returning_count(k, c)
    if not c.returning then
        return 0
    end
    return redis.call('ZCARD', k.returning)
end

-- The user's rank among the places reclaimed ahead of both lines, or nil when they hold none.
local function returning_rank(k, c, uid)
    if not c.returning then
        return nil
    end
    local rank = redis.call('ZRANK', k.returning, uid)
    return rank and rank + 1 or nil
end

-- How many hold a place in either line, or wait ahead of both after a loss.
local function waiting_count(k, c)
    local count = line_length(k, c) + returning_count(k, c)
    if c.invited then
        count = count + line_length(invited_line(k, c))
    end
    return count
end

-- A place's rank among everyone waiting: the places reclaimed after a loss that the line could
-- not hold are ahead of both lines, and the whole invited line is ahead of the main line.
local function rank_among_all(k, c, lk, lc, ticket)
    local rank = rank_of(lk, ticket, lc) + returning_count(k, c)
    if lk == k and c.invited then
        rank = rank + line_length(invited_line(k, c))
    end
    return rank
end

-- A ticket as the replies (and the wait tokens) carry it: the invited line's are negative.
local function reply_ticket(k, lk, ticket)
    return lk == k and ticket or -ticket
end

-- Takes the user out of whichever line they are in (or the places reclaimed ahead of both);
-- returns 1 when they held a place there.
local function give_up(k, uid, c)
    if c.returning and redis.call('ZREM', k.returning, uid) == 1 then
        return 1
    end
    local lk, lc, ticket = place_of(k, uid, c)
    if not ticket then
        return 0
    end
    redis.call('HDEL', page_of(lk, ticket), ticket)
    redis.call('HDEL', bucket_of(lk, uid), uid)
    redis.call('ZADD', lk.left, position_of(ticket, lc), ticket)
    inherit_ttl(k, lk.left)
    -- Gateways keep a view of the line (view.lua): a new version tells them to read 'left' again.
    redis.call('HINCRBY', k.settings, lk.field.left_v, 1)
    return 1
end

local function seen_span(abandon)
    return math.max(250, math.floor(abandon / 4))
end

-- Every request of someone in line counts as being there (abandon-after): the bit of their ticket
-- in the current span's bitmap (each line has its own). The bitmap's expiry is set once per span
-- for the whole line (settings 'seen_ttl' names the span it was set for; 'changes' collects that
-- field for the caller to write), not once per user.
-- The current span's bitmap of each line, worked out once a call ('now' is the call's).
local seen_nows = {}

local function seen_now_of(k, now, c)
    local seen_now = seen_nows[k.prefix]
    if not seen_now then
        local abandon = tonumber(rule(c, 'abandon-after')) or 0
        if abandon <= 0 then
            seen_now = { off = true }
        else
            local span = seen_span(abandon)
            local n = math.floor(now / span)
            seen_now = { key = k:seen(span, n), marker = span .. ':' .. n, ttl = abandon + 2 * span }
        end
        seen_nows[k.prefix] = seen_now
    end
    return seen_now
end

local function stamp_seen(k, ticket, now, c, changes)
    local seen_now = seen_now_of(k, now, c)
    if seen_now.off then
        return
    end
    if deferring then
        local pending = pending_seen[seen_now.key]
        if not pending then
            pending = { tickets = {}, order = {}, marker = seen_now.marker, field = k.field.seen_ttl, c = c,
                ttl = seen_now.ttl }
            pending_seen[seen_now.key] = pending
        end
        if not pending.tickets[ticket] then
            pending.tickets[ticket] = true
            pending.order[#pending.order + 1] = ticket
        end
        return
    end
    redis.call('SETBIT', seen_now.key, ticket % SEEN_WRAP, 1)
    if c.seen_ttl ~= seen_now.marker then
        redis.call('PEXPIRE', seen_now.key, seen_now.ttl)
        c.seen_ttl = seen_now.marker
        changes[#changes + 1] = k.field.seen_ttl
        changes[#changes + 1] = seen_now.marker
    end
end

-- stamp_seen for many tickets, given as the strings of their numbers: one BITFIELD command sets
-- up to SEEN_BATCH bits, and a ticket below 10^7 (inside SEEN_WRAP) is its own bit offset, so no
-- number is turned into a string and back. Returns how many were marked.
local SEEN_BATCH = 400

local function stamp_seen_all(k, tickets, now, c, changes)
    if #tickets == 0 then
        return 0
    end
    stamp_seen(k, tonumber(tickets[1]), now, c, changes)
    local seen_now = seen_now_of(k, now, c)
    if seen_now.off then
        return 0
    end
    local ops = {}
    for i = 2, #tickets do
        local ticket = tickets[i]
        if #ticket > 7 then
            ticket = tostring(tonumber(ticket) % SEEN_WRAP)
        end
        ops[#ops + 1] = 'SET'
        ops[#ops + 1] = 'u1'
        ops[#ops + 1] = ticket
        ops[#ops + 1] = '1'
        if #ops == 4 * SEEN_BATCH or i == #tickets then
            redis.call('BITFIELD', seen_now.key, unpack(ops))
            ops = {}
        end
    end
    return #tickets
end

-- Notes that someone asked about the product, adding the settings fields to write to 'changes'
-- (written once a second at most). A product nobody asked about for half its abandon-after has
-- been unreachable (a Redis or gateway outage) rather than deserted: everyone in line gets a whole
-- abandon-after again to come back, before promotion judges them.
local HEARD_RESOLUTION = 1000 -- ms: how stale 'heard_at' may be, so a busy product writes it once a second

local function heard(now, c, changes)
    local abandon = tonumber(rule(c, 'abandon-after')) or 0
    local last = tonumber(c.heard_at)
    if abandon > 0 and last and now - last > abandon / 2 then
        c.seen_since = tostring(now)
        changes[#changes + 1] = 'seen_since'
        changes[#changes + 1] = c.seen_since
    end
    -- A short abandon-after needs a finer 'heard_at': with 3 s, two writes a second apart plus an
    -- instance's flush delay would come close to the 1.5 s that reads as an outage.
    local resolution = HEARD_RESOLUTION
    if abandon > 0 then
        resolution = math.min(resolution, math.floor(abandon / 8))
    end
    if not last or now - last >= resolution then
        c.heard_at = tostring(now)
        changes[#changes + 1] = 'heard_at'
        changes[#changes + 1] = c.heard_at
    end
end

-- Whether the ticket's holder was seen within abandon-after (give or take a quarter of it, the
-- bitmaps' span). Since 'seen_since' (when the product's abandon-after last changed, it came back
-- from an outage, or its sale opened) everyone has had the whole abandon-after to be seen.
local function seen_lately(k, ticket, now, c)
    local abandon = tonumber(rule(c, 'abandon-after')) or 0
    if abandon <= 0 or now - (tonumber(c.seen_since) or 0) < abandon then
        return true
    end
    local pending = pending_seen[seen_now_of(k, now, c).key]
    if pending and pending.tickets[ticket] then
        return true
    end
    local span = seen_span(abandon)
    for slot = math.floor(now / span), math.floor((now - abandon) / span), -1 do
        if redis.call('GETBIT', k:seen(span, slot), ticket % SEEN_WRAP) == 1 then
            return true
        end
    end
    return false
end

-- How many holders this call dropped as not seen lately: every script that fills places replies
-- abandoned_this_call() ('abandoned'), so the gateway counts and logs them; settings 'abandoned'
-- totals them for operators. The count is no variable a script could read or change unseen: it is
-- read through abandoned_this_call(), and take() adds to it through count_abandoned().
local abandoned_this_call, count_abandoned
do
    local dropped = 0
    abandoned_this_call = function()
        return dropped
    end
    count_abandoned = function(more)
        dropped = dropped + more
    end
end

-- Takes up to 'wanted' users off the head of the line, in order. Places given up are passed
-- over; holders not seen lately lose their place. At most SKIP_BUDGET places are passed over in
-- one call, so a long run of closed tabs never holds Redis: the next call goes on.
local function take(k, c, wanted, now)
    local last = last_ticket(k)
    local head = tonumber(c.head) or 1
    local taken = {}
    local dropped = 0
    local budget = wanted + SKIP_BUDGET
    while #taken < wanted and head <= last and budget > 0 do
        local ticket = ticket_at(head, c)
        local page = page_of(k, ticket)
        local uid = redis.call('HGET', page, ticket)
        if uid then
            redis.call('HDEL', page, ticket)
            local bucket = bucket_of(k, uid)
            -- A bucket entry that points elsewhere belongs to a later place of the same user.
            if tonumber(redis.call('HGET', bucket, uid)) == ticket then
                redis.call('HDEL', bucket, uid)
                if seen_lately(k, ticket, now, c) then
                    taken[#taken + 1] = uid
                else
                    dropped = dropped + 1
                end
                -- Off the line: a mark this call has yet to write is no longer needed.
                local pending = deferring and pending_seen[seen_now_of(k, now, c).key]
                if pending then
                    pending.tickets[ticket] = nil
                end
            end
        end
        head = head + 1
        budget = budget - 1
    end
    if dropped > 0 then
        count_abandoned(dropped)
        redis.call('HINCRBY', k.settings, 'abandoned', dropped)
    end
    if head ~= (tonumber(c.head) or 1) then
        redis.call('HSET', k.settings, k.field.head, head)
        redis.call('ZREMRANGEBYSCORE', k.left, '-inf', '(' .. head)
        c.head = head
    end
    return taken
end

-- The first users in line, in order, without changing anything.
local function peek(k, c, limit)
    local last = last_ticket(k)
    local position = tonumber(c.head) or 1
    local users = {}
    while #users < limit and position <= last do
        local ticket = ticket_at(position, c)
        local uid = redis.call('HGET', page_of(k, ticket), ticket)
        if uid then
            users[#users + 1] = uid
        end
        position = position + 1
    end
    return users
end

-- Writes what a deferring call has gathered: the counters and pages at once (before a fill reads
-- them, and before the call answers), the seen marks only when 'seen' is true (at the end: a user
-- the call admits needs none). A seen bitmap's expiry is set, and its marker added to 'changes',
-- only once the bitmap exists.
local function flush_line_writes(changes, seen)
    for _, pending in pairs(pending_last) do
        if pending.dirty then
            redis.call('SET', pending.seq, pending.last, 'KEEPTTL')
            pending.dirty = false
        end
    end
    for _, page in ipairs(pending_page_keys) do
        redis.call('HSET', page, unpack(pending_pages[page]))
        redis.call('PEXPIRE', page, deferred_ttl)
    end
    pending_pages, pending_page_keys = {}, {}
    if not seen then
        return
    end
    for key, pending in pairs(pending_seen) do
        local ops = {}
        for _, ticket in ipairs(pending.order) do
            if pending.tickets[ticket] then
                ops[#ops + 1] = 'SET'
                ops[#ops + 1] = 'u1'
                local offset = ticket % SEEN_WRAP
                ops[#ops + 1] = (offset == ticket and ticket_texts[ticket]) or offset
                ops[#ops + 1] = '1'
                if #ops == 4 * SEEN_BATCH then
                    redis.call('BITFIELD', key, unpack(ops))
                    ops = {}
                end
            end
        end
        local marked = #ops > 0 or redis.call('EXISTS', key) == 1
        if #ops > 0 then
            redis.call('BITFIELD', key, unpack(ops))
        end
        if marked and pending.c.seen_ttl ~= pending.marker then
            redis.call('PEXPIRE', key, pending.ttl)
            pending.c.seen_ttl = pending.marker
            changes[#changes + 1] = pending.field
            changes[#changes + 1] = pending.marker
        end
    end
    pending_seen = {}
end
