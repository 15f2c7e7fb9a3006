package io.queuegate.events;

/**
 * What QueueGate was doing when Redis could not answer: the {@code operation} of
 * {@link QueueEvents#redisFailure}. Its {@link #value() spelling} is the
 * {@code queuegate.redis.failures} counter's {@code operation} tag and the audit log's
 * {@code operation=}.
 */
public enum RedisOperation {

    /** Deciding about a request: a join, a poll through Redis, a token holder's check. */
    ADMISSION,

    /** Ending a session after its completing request. */
    COMPLETION,

    /** A promotion pass (any strategy's, or the scheduler's and the safety net's). */
    PROMOTION,

    /** Handling Redis's expiry of a session ({@code promotion: keyspace}). */
    EXPIRY;

    /** The spelling metrics, the audit log and the docs use. */
    public String value() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public String toString() {
        return value();
    }
}
