package io.queuegate.config;

/**
 * How users move from a product's wait queue into its active set (the seed's four strategies).
 */
public enum Promotion {

    /** Every {@code queuegate.scheduler.interval}, each product with a queue is promoted. */
    SCHEDULER,

    /** A completion or leave publishes {@code qg:slot-available:<pid>}; every instance listens. */
    PUBSUB,

    /** Redis expiry events of per-user slot keys. Not built yet. */
    KEYSPACE,

    /** Slot-free events in a Redis Stream read by a consumer group. Not built yet. */
    STREAM;

    /** The value stored in Redis and matched by {@code promote.lua}. */
    public String id() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Whether this build can run the strategy; the others fail at startup, never silently. */
    public boolean isSupported() {
        return this == SCHEDULER || this == PUBSUB;
    }
}
