-- Adds products to the index of due products at a time, or moves them earlier; never later:
-- ZADD LT adds new members and only ever lowers existing scores, so a sweep never delays a mark.
--
-- KEYS  1 'qg:due' ZSET (member product id, score = when its promotion may be due, epoch ms)
-- ARGV  pairs: when (epoch ms), product id
-- Reply added (how many products were new to the index)
return { 'added', redis.call('ZADD', KEYS[1], 'LT', unpack(ARGV)) }
