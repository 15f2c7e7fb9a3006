package io.queuegate.web;

/**
 * How long a waiting client should wait before asking again: short near the front, where a
 * place may open any moment, longer far back, so a large queue does not poll Redis at a fixed
 * high rate.
 */
public final class RetryAfter {

    /** Every 100 places of rank add one second, up to this. */
    public static final long MAX_SECONDS = 10;

    private RetryAfter() {
    }

    public static long forRank(long rank) {
        return Math.min(MAX_SECONDS, 1 + Math.max(0, rank - 1) / 100);
    }
}
