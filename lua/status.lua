-- Where a user stands, read in one step so a promotion between two reads cannot make an
-- active user look absent. Never changes anything.
--
-- KEYS[1] wait ZSET   KEYS[2] active ZSET
-- ARGV[1] user id   ARGV[2] now (epoch ms)
-- Returns {state, rank}: 1 = active, 0 = waiting (rank 1-based), -1 = not found.
local expiry = redis.call('ZSCORE', KEYS[2], ARGV[1])
if expiry and tonumber(expiry) > tonumber(ARGV[2]) then
    return {1, 0}
end
local rank = redis.call('ZRANK', KEYS[1], ARGV[1])
if rank then
    return {0, rank + 1}
end
return {-1, 0}
