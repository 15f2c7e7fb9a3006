package io.queuegate.identity;

import java.time.Clock;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A gate for a warning that should show at once and then at most once a minute: a misconfiguration
 * shows up in the log at the first request, and a client sending what triggers it on every
 * request cannot flood the log. On the gateway's clock, so a test moves time on instead of waiting.
 */
public final class OnceAMinute {

    static final long EVERY_MILLIS = 60_000;

    private final Clock clock;
    /** When the gate last opened (epoch ms); 0 before the first time. */
    private final AtomicLong last = new AtomicLong();

    public OnceAMinute(Clock clock) {
        this.clock = clock;
    }

    /** Whether the warning may go out now; true for one caller at most once a minute. */
    public boolean open() {
        long now = clock.millis();
        long previous = last.get();
        return (previous == 0 || now - previous >= EVERY_MILLIS) && last.compareAndSet(previous, now);
    }
}
