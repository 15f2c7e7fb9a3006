-- Counts one join of a caller in a fixed window, so one client cannot mint unbounded places or
-- queues. The caller's key stands alone (its own slot), so this is a separate, single-key call.
--
-- KEYS[1] the caller's counter   ARGV[1] window (ms)
-- Returns {joins in this window, ms until the window ends}.
local joins = redis.call('INCR', KEYS[1])
if joins == 1 then
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return {joins, redis.call('PTTL', KEYS[1])}
