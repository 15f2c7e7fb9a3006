package io.queuegate.admission;

import java.time.Duration;
import java.time.Instant;

import io.queuegate.support.TestClock;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A remembered pass lasts as long as the gateway's clock says, not the machine's. */
class ActiveCacheClockTest {

    private final TestClock clock = new TestClock(Instant.parse("2026-12-01T00:00:00Z"));
    private final ActiveCache cache = new ActiveCache(null, clock, Duration.ofMillis(300));

    @Test
    void aPassOutlivesRealTimeWhileTheGatewaysClockStands() {
        cache.remember("42", "alice");

        Awaitility.await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(2))
                .until(() -> cache.isActive("42", "alice"));
    }

    @Test
    void aPassEndsWhenTheGatewaysClockPassesItsTtl() {
        cache.remember("42", "alice");
        clock.advance(Duration.ofMillis(299));
        assertThat(cache.isActive("42", "alice")).isTrue();

        clock.advance(Duration.ofMillis(2));

        assertThat(cache.isActive("42", "alice")).isFalse();
    }
}
