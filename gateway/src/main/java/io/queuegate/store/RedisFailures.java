package io.queuegate.store;

import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisException;

import org.springframework.dao.DataAccessException;

/**
 * Which errors mean "Redis could not answer" (including "the circuit breaker is open"), as
 * opposed to a bug that must surface.
 */
public final class RedisFailures {

    private RedisFailures() {
    }

    public static boolean isRedisFailure(Throwable error) {
        return error instanceof DataAccessException
                || error instanceof RedisException
                || error instanceof TimeoutException
                || error instanceof RedisBreaker.CircuitOpen;
    }
}
