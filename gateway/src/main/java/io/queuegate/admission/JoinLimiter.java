package io.queuegate.admission;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;

/**
 * Counts joins without a token per caller in fixed windows, in this instance's memory, so the
 * join path costs no Redis round trip beyond the join itself. With N instances behind a load
 * balancer a caller can make up to N times the limit; it still cannot mint unbounded places or
 * queues.
 *
 * <p>Memory is bounded: a window leaves when it ends, and past {@link #MAX_CALLERS} callers
 * Caffeine evicts, one at a time, the ones least likely to be asked about again (seen rarely and
 * not lately). A flood of new callers (an attacker rotating addresses) therefore never resets
 * anybody's window: least of all one that a caller keeps running into, which is what the
 * attacker's own identities would want reset.
 */
public final class JoinLimiter {

    static final int MAX_CALLERS = 100_000;

    private final int maxPerWindow;
    private final long windowMillis;
    private final Clock clock;
    private final Cache<String, Window> windows;

    public JoinLimiter(int maxPerWindow, Duration window, Clock clock) {
        this.maxPerWindow = maxPerWindow;
        this.windowMillis = window.toMillis();
        this.clock = clock;
        long origin = clock.millis();
        this.windows = Caffeine.newBuilder()
                .maximumSize(MAX_CALLERS)
                .expireAfter(new UntilTheWindowEnds())
                // The windows' own time, so they end when the limiter says so (and tests set it).
                .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis() - origin))
                // Evictions on the calling thread, as part of the call: nothing else to schedule.
                .executor(Runnable::run)
                .build();
    }

    /** The milliseconds until {@code caller} may join again, 0 when it may now; counts nothing. */
    public long check(String caller) {
        long now = clock.millis();
        Window window = windows.getIfPresent(caller);
        if (window == null || ended(window, now) || window.joins() < maxPerWindow) {
            return 0;
        }
        return Math.max(1, window.start() + windowMillis - now);
    }

    /** Counts one join of {@code caller}, in its window or in a new one from now. */
    public void count(String caller) {
        counted(caller, clock.millis());
    }

    /**
     * Counts one join of {@code caller}, allowed or not (a caller that keeps trying stays
     * refused), as one step: {@link #check} and {@link #count} together.
     *
     * @return 0 when the join may go ahead, else the milliseconds until the caller's window ends
     */
    public long tryJoin(String caller) {
        long now = clock.millis();
        Window window = counted(caller, now);
        return window.joins() <= maxPerWindow ? 0 : Math.max(1, window.start() + windowMillis - now);
    }

    /** How many callers are remembered, for tests of the bound. */
    long size() {
        windows.cleanUp();
        return windows.estimatedSize();
    }

    private Window counted(String caller, long now) {
        return windows.asMap().compute(caller, (key, old) -> old == null || ended(old, now)
                ? new Window(now, 1) : new Window(old.start(), old.joins() + 1));
    }

    private boolean ended(Window window, long now) {
        return now - window.start() >= windowMillis;
    }

    private record Window(long start, int joins) {
    }

    private final class UntilTheWindowEnds implements Expiry<String, Window> {

        @Override
        public long expireAfterCreate(String caller, Window window, long currentTime) {
            return left(window);
        }

        @Override
        public long expireAfterUpdate(String caller, Window window, long currentTime, long currentDuration) {
            return left(window);
        }

        @Override
        public long expireAfterRead(String caller, Window window, long currentTime, long currentDuration) {
            return currentDuration;
        }

        private long left(Window window) {
            return TimeUnit.MILLISECONDS.toNanos(Math.max(0, window.start() + windowMillis - clock.millis()));
        }
    }
}
