package io.queuegate.events;

/**
 * What the admission filter decided about one request: the {@code outcome} of
 * {@link QueueEvents#decided}. Its {@link #value() spelling} is the {@code queuegate.decision}
 * timer's {@code outcome} tag.
 */
public enum Decision {

    /** Let through: the shopper holds a session. */
    ACTIVE,

    /** Answered with the shopper's place in line (429, or the pre-queue). */
    WAITING,

    /** Answered with a contract error (the proof of work asked for included). */
    REJECTED,

    /** Redis could not answer and the route fails closed (503). */
    UNAVAILABLE,

    /** Redis could not answer and the route fails open: forwarded unchecked. */
    UNCHECKED;

    /** The spelling metrics and the docs use. */
    public String value() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public String toString() {
        return value();
    }
}
