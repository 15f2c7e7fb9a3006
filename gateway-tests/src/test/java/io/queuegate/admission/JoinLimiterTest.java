package io.queuegate.admission;

import java.time.Duration;
import java.time.Instant;

import io.queuegate.support.TestClock;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class JoinLimiterTest {

    private final TestClock clock = new TestClock(Instant.parse("2026-12-02T12:00:00Z"));
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
        clock.advance(Duration.ofSeconds(45));
        assertThat(limiter.tryJoin("alice")).isEqualTo(15_000);
        clock.advance(Duration.ofSeconds(15));
        assertThat(limiter.tryJoin("alice")).isZero();
    }

    /**
     * An attacker rotating addresses must not buy anyone a fresh window, least of all the callers
     * it is refused as: a table that started afresh when full handed every caller its whole limit
     * again. Over ten seconds, 100,010 new callers join once each, while a refused caller asks
     * again every second (as Retry-After tells it to) and another checks where it stands: both
     * windows keep their start and their count.
     */
    @Test
    void aFloodOfDistinctCallersDoesNotResetTheWindowsInUse() {
        for (int i = 0; i < 4; i++) {
            limiter.tryJoin("ip:203.0.113.7");
        }
        limiter.count("alice");
        limiter.count("alice");
        int flooders = 0;
        for (int second = 1; second <= 10; second++) {
            clock.advance(Duration.ofSeconds(1));
            for (int i = 0; i < 10_001; i++) {
                limiter.tryJoin("ip:flood-" + flooders++);
            }
            assertThat(limiter.tryJoin("ip:203.0.113.7")).as("refused after %d new callers", flooders)
                    .isEqualTo(60_000 - second * 1000L);
            assertThat(limiter.check("alice")).as("two of three after %d new callers", flooders).isZero();
        }
        assertThat(flooders).isGreaterThan(JoinLimiter.MAX_CALLERS);
        limiter.count("alice");
        assertThat(limiter.check("alice")).as("her third join, in the window of her first").isEqualTo(50_000);
        assertThat(limiter.size()).isLessThanOrEqualTo(JoinLimiter.MAX_CALLERS);
    }

    @Test
    void checkingDoesNotCount() {
        for (int i = 0; i < 10; i++) {
            assertThat(limiter.check("alice")).isZero();
        }
        assertThat(limiter.size()).as("nobody counted yet").isZero();
        limiter.count("alice");
        limiter.count("alice");
        assertThat(limiter.check("alice")).as("two of three").isZero();
        limiter.count("alice");
        clock.advance(Duration.ofSeconds(20));
        assertThat(limiter.check("alice")).as("three of three: the rest of the window").isEqualTo(40_000);
        assertThat(limiter.check("alice")).isEqualTo(40_000);
        assertThat(limiter.check("bob")).isZero();
    }

    @Test
    void aCountAfterTheWindowStartsANewOne() {
        for (int i = 0; i < 3; i++) {
            limiter.count("alice");
        }
        clock.advance(Duration.ofSeconds(60));
        assertThat(limiter.check("alice")).isZero();
        limiter.count("alice");
        clock.advance(Duration.ofSeconds(30));
        limiter.count("alice");
        limiter.count("alice");
        assertThat(limiter.check("alice")).as("the new window began at its first count").isEqualTo(30_000);
    }

    @Test
    void tryJoinChecksAndCountsAsOne() {
        limiter.count("alice");
        limiter.count("alice");
        assertThat(limiter.tryJoin("alice")).isZero();
        assertThat(limiter.check("alice")).isEqualTo(60_000);
        assertThat(limiter.tryJoin("alice")).isEqualTo(60_000);
    }

    @Test
    void windowsThatEndedAreForgotten() {
        for (int i = 0; i < 1000; i++) {
            limiter.count("ip:caller-" + i);
        }
        assertThat(limiter.size()).isEqualTo(1000);
        clock.advance(Duration.ofSeconds(61));
        limiter.count("alice");
        assertThat(limiter.size()).isEqualTo(1);
    }
}
