package io.queuegate.config;

/** What a protected route does while Redis cannot answer. */
public enum RedisFailureMode {

    /** Answer 503 {@code queue_unavailable}: nobody passes unchecked (the default; stock is exact). */
    CLOSED,

    /** Forward every request unchecked: the shop stays up, the queue is off until Redis returns. */
    OPEN
}
