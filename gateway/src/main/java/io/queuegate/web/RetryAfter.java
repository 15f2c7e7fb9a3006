package io.queuegate.web;

/**
 * How long a waiting client should wait before asking again: short near the front, where a
 * place may open any moment, longer far back, so a large queue does not poll Redis at a fixed
 * high rate. With an estimate, a tenth of the expected wait; without one, a second per 100 places.
 */
public final class RetryAfter {

    /** Never longer: a page that polls rarely feels dead, and a place may free early. */
    public static final long MAX_SECONDS = 20;

    private RetryAfter() {
    }

    public static long forRank(long rank) {
        return Math.min(MAX_SECONDS, 1 + Math.max(0, rank - 1) / 100);
    }

    /** @param estimatedWaitSeconds the wait estimate, or {@code null} when none is known */
    public static long of(long rank, Long estimatedWaitSeconds) {
        if (estimatedWaitSeconds == null) {
            return forRank(rank);
        }
        return Math.max(1, Math.min(MAX_SECONDS, estimatedWaitSeconds / 10));
    }
}
