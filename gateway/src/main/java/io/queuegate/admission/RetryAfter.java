package io.queuegate.admission;

import java.time.Duration;
import java.time.Instant;

/**
 * How long a waiting client should wait before asking again: short near the front, where a
 * place may open any moment, longer far back, so a large queue does not poll Redis at a fixed
 * high rate. With an estimate, a tenth of the expected wait; without one, a second per 100 places.
 * Never more than a third of abandon-after, so a client that follows it keeps its place even if
 * one poll is lost.
 */
public final class RetryAfter {

    /** Never longer: a page that polls rarely feels dead, and a place may free early. */
    public static final long MAX_SECONDS = 20;

    /** While a room is closed: operators close rooms for minutes, not seconds. */
    public static final long CLOSED_SECONDS = 30;

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

    /** Like {@link #of(long, Long)}, kept below abandon-after ({@link Duration#ZERO} = never). */
    public static long of(long rank, Long estimatedWaitSeconds, Duration abandonAfter) {
        return capped(of(rank, estimatedWaitSeconds), abandonAfter);
    }

    /**
     * In a sale's pre-queue: at the opening (when places are drawn), else as late as
     * abandon-after allows.
     */
    public static long beforeOpening(Duration untilOpening, Duration abandonAfter) {
        long seconds = Math.max(1, (untilOpening.toMillis() + 999) / 1000);
        return capped(Math.min(MAX_SECONDS, seconds), abandonAfter);
    }

    /**
     * The latest a shopper in a sale's pre-queue may come back and keep the place: asking before the
     * opening is not needed, but whoever is still in line after it must be seen within
     * abandon-after of it, and whoever the opening draws into a place must arrive within
     * arrival-ttl of being let in, which the opening's first promotion does at {@code opensAt}.
     *
     * @param abandonAfter {@link Duration#ZERO} for never
     */
    public static Instant comeBackBy(Instant opensAt, Duration abandonAfter, Duration arrivalTtl) {
        Duration grace = abandonAfter.isZero() || arrivalTtl.compareTo(abandonAfter) < 0 ? arrivalTtl : abandonAfter;
        return opensAt.plus(grace);
    }

    /**
     * While an operator keeps the room closed: rarely, but still within abandon-after, since those
     * in line keep their places only by asking.
     */
    public static long whileClosed(Duration abandonAfter) {
        return capped(CLOSED_SECONDS, abandonAfter);
    }

    private static long capped(long seconds, Duration abandonAfter) {
        if (abandonAfter.isZero()) {
            return seconds;
        }
        return Math.max(1, Math.min(seconds, abandonAfter.toSeconds() / 3));
    }
}
