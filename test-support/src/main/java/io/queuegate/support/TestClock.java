package io.queuegate.support;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock the test moves: time passes only when the test says so, so nothing waits for real. */
public final class TestClock extends Clock {

    private volatile Instant now;

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
        return now;
    }
}
