package io.queuegate.admission;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts joins without a token per caller in fixed windows, in this instance's memory, so the
 * join path costs no Redis round trip beyond the join itself. With N instances behind a load
 * balancer a caller can make up to N times the limit; it still cannot mint unbounded places or
 * queues. Memory is bounded: past {@link #MAX_CALLERS} callers, finished windows are swept, and
 * if a flood of distinct callers fills even that, the table starts afresh.
 */
public final class JoinLimiter {

    static final int MAX_CALLERS = 100_000;

    private final int maxPerWindow;
    private final long windowMillis;
    private final Clock clock;
    private final Map<String, Window> windows = new ConcurrentHashMap<>();

    public JoinLimiter(int maxPerWindow, Duration window, Clock clock) {
        this.maxPerWindow = maxPerWindow;
        this.windowMillis = window.toMillis();
        this.clock = clock;
    }

    /**
     * Counts one join of {@code caller}.
     *
     * @return 0 when the join may go ahead, else the milliseconds until the caller's window ends
     */
    public long tryJoin(String caller) {
        long now = clock.millis();
        if (windows.size() >= MAX_CALLERS) {
            windows.values().removeIf(window -> now - window.start() >= windowMillis);
            if (windows.size() >= MAX_CALLERS) {
                windows.clear();
            }
        }
        Window window = windows.compute(caller, (key, old) -> old == null || now - old.start() >= windowMillis
                ? new Window(now, 1) : new Window(old.start(), old.joins() + 1));
        return window.joins() <= maxPerWindow ? 0 : Math.max(1, window.start() + windowMillis - now);
    }

    /**
     * How long until {@code caller} may join again, without counting a join.
     *
     * @return 0 when a join may go ahead now, else the milliseconds until the caller's window ends
     */
    public long check(String caller) {
        long now = clock.millis();
        Window window = windows.get(caller);
        if (window == null || now - window.start() >= windowMillis || window.joins() < maxPerWindow) {
            return 0;
        }
        return Math.max(1, window.start() + windowMillis - now);
    }

    /** Counts one join of {@code caller}, made after {@link #check} allowed it. */
    public void count(String caller) {
        tryJoin(caller);
    }

    private record Window(long start, int joins) {
    }
}
