-- Writes a safety-net pass's results back to the index of due products, each only if nobody
-- marked the product due since the pass read it: a join or promotion in between set a newer
-- score, and that mark must not be lost.
--
-- KEYS[1] 'qg:due' ZSET (member product id, score = when its promotion may be due, epoch ms)
-- ARGV triples: product id, the score the pass read, the next due time ('-1' = remove)
-- Returns how many were written.
local written = 0
for i = 1, #ARGV, 3 do
    local current = redis.call('ZSCORE', KEYS[1], ARGV[i])
    if current and tonumber(current) == tonumber(ARGV[i + 1]) then
        if ARGV[i + 2] == '-1' then
            redis.call('ZREM', KEYS[1], ARGV[i])
        else
            redis.call('ZADD', KEYS[1], ARGV[i + 2], ARGV[i])
        end
        written = written + 1
    end
end
return written
