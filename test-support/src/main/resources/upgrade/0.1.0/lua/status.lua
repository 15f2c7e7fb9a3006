-- Where a user stands, read in one step so a promotion between two reads cannot make an
-- active user look absent. Changes nothing but what being there changes: asking counts as still
-- being there (abandon-after, and the product's last-heard time) and keeps the user's line
-- entries as long as the product's keys; the first read after a sale's opens-at records the
-- opening, as any script would.
--
-- KEYS[1] settings HASH   KEYS[2] active ZSET   KEYS[3] ticket counter
-- ARGV[1] user id   ARGV[2] now (epoch ms)
-- Returns {state, rank, rate, opens, abandon, timed}: 1 = active, 0 = waiting (rank 1-based), 2 =
-- in the pre-queue of a sale not yet open (rank = how many are in line), -1 = not found; rate =
-- admissions per second x 10^6; opens = the sale's opens-at (epoch ms, -1 when none); abandon =
-- the product's abandon-after (ms, 0 = never), so the answer can say when to ask again; timed = 1
-- when promotion runs on a clock of its own (opens-at or max-admit-per-minute).
local settings, active = KEYS[1], KEYS[2]
local prefix = prefix_of(settings)
local uid, now = ARGV[1], tonumber(ARGV[2])
local c = settings_of(settings)
local rate = math.floor(admission_rate(c, now) * 1000000)
local opens, abandon = tonumber(c.opens) or -1, tonumber(c.abandon) or 0
local timed = (opens >= 0 or (tonumber(c.apm) or 0) > 0) and 1 or 0
local changes = {}
heard(now, c, changes)
if #changes > 0 then
    redis.call('HSET', settings, unpack(changes))
end
local expiry = redis.call('ZSCORE', active, uid)
if expiry and tonumber(expiry) > now then
    return {1, 0, rate, opens, abandon, timed}
end
local ticket = ticket_of(prefix, uid, c)
if not ticket then
    return {-1, 0, rate, opens, abandon, timed}
end
if stamp_seen(prefix, ticket, now, c) then
    local ttl = redis.call('PTTL', settings)
    if ttl > 0 then
        keep(prefix, uid, ticket, ttl)
    end
end
if not opened(prefix, settings, now, c) then
    return {2, line_length(prefix, c), rate, opens, abandon, timed}
end
return {0, rank_of(prefix, ticket, c), rate, opens, abandon, timed}
