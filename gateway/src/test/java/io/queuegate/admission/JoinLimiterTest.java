package io.queuegate.admission;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class JoinLimiterTest {

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-02T12:00:00Z"));
    private final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    };
    private final JoinLimiter limiter = new JoinLimiter(3, Duration.ofMinutes(1), clock);

    @Test
    void letsEachCallerJoinUpToTheLimitPerWindow() {
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.tryJoin("ip:203.0.113.7")).isZero();
        }
        assertThat(limiter.tryJoin("ip:203.0.113.7")).isEqualTo(60_000);
        assertThat(limiter.tryJoin("alice")).isZero();
    }

    @Test
    void saysHowLongUntilTheWindowEndsAndThenForgets() {
        for (int i = 0; i < 4; i++) {
            limiter.tryJoin("alice");
        }
        now.set(now.get().plusSeconds(45));
        assertThat(limiter.tryJoin("alice")).isEqualTo(15_000);
        now.set(now.get().plusSeconds(15));
        assertThat(limiter.tryJoin("alice")).isZero();
    }

    @Test
    void aFloodOfDistinctCallersCannotGrowItWithoutBound() {
        for (int i = 0; i < JoinLimiter.MAX_CALLERS + 10; i++) {
            limiter.tryJoin("ip:caller-" + i);
        }
        // The table started afresh instead of growing: an early caller is counted anew.
        assertThat(limiter.tryJoin("ip:caller-0")).isZero();
    }
}
