package io.queuegate.config;

/**
 * How users move from a product's wait queue into its active set (docs/promotion.md compares the four).
 */
public enum Promotion {

    /** Every {@code queuegate.scheduler.interval}, each product with a queue is promoted. */
    SCHEDULER,

    /** A completion or leave publishes {@code qg:slot-available:<pid>}; every instance listens. */
    PUBSUB,

    /** Redis expiry events of per-user slot keys: a walked-away session frees its place at once. */
    KEYSPACE,

    /** Slot-free events in a Redis Stream read by one consumer group of all instances. */
    STREAM;

    /** The value stored in Redis and matched by {@code promote.lua}. */
    public String id() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
