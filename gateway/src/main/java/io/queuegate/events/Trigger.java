package io.queuegate.events;

/**
 * What ran a promotion (and with it any drop of abandoned places): the {@code trigger} of
 * {@link QueueEvents#promoted} and {@link QueueEvents#abandoned}. Its {@link #value() spelling} is
 * what the {@code queuegate.admissions} metric's {@code trigger} tag and the audit log's
 * {@code trigger=} show, and what {@link #toString()} returns.
 */
public enum Trigger {

    /** A join (one user's or a group-committed batch) made room or found it. */
    JOIN("join"),

    /** A user gave up their place. */
    LEAVE("leave"),

    /** A {@code complete-on} request ended a session. */
    COMPLETION("completion"),

    /** The shop answered 404 to a product that is not configured: the session and the product went. */
    UNKNOWN_PRODUCT("unknown"),

    /** Redis's expiry of a session was handled ({@code promotion: keyspace}). */
    EXPIRY("expiry"),

    /** A promotion pass without a request: the scheduler, the safety net, pub/sub, the stream, the timed loop. */
    PROMOTE("promote"),

    /** An operator's change through the {@code queues} endpoint. */
    ADMIN("admin"),

    /** The shop's {@code Queue-Stock} header raised the stock, freeing places. */
    RESTOCK("restock");

    private final String value;

    Trigger(String value) {
        this.value = value;
    }

    /** The spelling metrics, the audit log and the docs use. */
    public String value() {
        return value;
    }

    /** {@link #value()}, so a trigger prints as it always has. */
    @Override
    public String toString() {
        return value;
    }
}
