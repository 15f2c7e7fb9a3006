-- Where a user stands, read in one step so a promotion between two reads cannot make an
-- active user look absent. Changes nothing but the waiter's last-seen stamp: asking counts as
-- still being there (abandon-after).
--
-- KEYS[1] wait ZSET   KEYS[2] active ZSET   KEYS[3] settings HASH
-- ARGV[1] user id   ARGV[2] now (epoch ms)
-- Returns {state, rank, rate, opens, abandon}: 1 = active, 0 = waiting (rank 1-based), 2 = in the
-- pre-queue of a sale not yet open (rank = how many are in it), -1 = not found; rate = admissions
-- per second x 10^6; opens = the sale's opens-at (epoch ms, -1 when none); abandon = the
-- product's abandon-after (ms, 0 = never), so the answer can say when to ask again.
local now = tonumber(ARGV[2])
local rate = math.floor(admission_rate(KEYS[3], now) * 1000000)
local conf = redis.call('HMGET', KEYS[3], 'opens', 'abandon')
local opens, abandon = tonumber(conf[1]) or -1, tonumber(conf[2]) or 0
local expiry = redis.call('ZSCORE', KEYS[2], ARGV[1])
if expiry and tonumber(expiry) > now then
    return {1, 0, rate, opens, abandon}
end
local ticket = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not ticket then
    return {-1, 0, rate, opens, abandon}
end
redis.call('ZADD', prefix_of(KEYS[2]) .. 'seen', 'XX', now, ARGV[1])
if now < opens then
    return {2, redis.call('ZCARD', KEYS[1]), rate, opens, abandon}
end
return {0, redis.call('ZRANK', KEYS[1], ARGV[1]) + 1, rate, opens, abandon}
