-- Where a user stands, read in one step so a promotion between two reads cannot make an
-- active user look absent. Never changes anything.
--
-- KEYS[1] wait ZSET   KEYS[2] active ZSET   KEYS[3] settings HASH
-- ARGV[1] user id   ARGV[2] now (epoch ms)
-- Returns {state, rank, rate}: 1 = active, 0 = waiting (rank 1-based), -1 = not found; rate =
-- admissions per second x 10^6.
local now = tonumber(ARGV[2])
local rate = math.floor(admission_rate(KEYS[3], now) * 1000000)
local expiry = redis.call('ZSCORE', KEYS[2], ARGV[1])
if expiry and tonumber(expiry) > now then
    return {1, 0, rate}
end
local rank = redis.call('ZRANK', KEYS[1], ARGV[1])
if rank then
    return {0, rank + 1, rate}
end
return {-1, 0, rate}
