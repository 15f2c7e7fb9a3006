package io.queuegate.support;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock the test moves: time passes only when the test says so, so nothing waits for real; until
 * the test {@linkplain #release() releases} it to real time.
 */
public final class TestClock extends Clock {

    private volatile Instant now;
    private volatile boolean released;

    public TestClock(Instant start) {
        this.now = start;
    }

    /** Moves the clock forward. */
    public void advance(Duration by) {
        now = now.plus(by);
    }

    /** Sets the clock to {@code instant}. */
    public void set(Instant instant) {
        now = instant;
    }

    /**
     * From now on, real time. For a gateway that outlives its test on a shared Redis: its loops go
     * on over every product there, and must not decide at an instant the next tests have left
     * behind, or not reached yet.
     */
    public void release() {
        released = true;
    }

    @Override
    public ZoneOffset getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return released ? Instant.now() : now;
    }
}
