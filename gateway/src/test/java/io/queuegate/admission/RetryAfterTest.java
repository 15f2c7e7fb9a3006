package io.queuegate.admission;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RetryAfterTest {

    private static final Duration NEVER = Duration.ZERO;

    @Test
    void nearTheFrontAskAgainSoonFarBackLessOften() {
        assertThat(RetryAfter.of(1, null)).isEqualTo(1);
        assertThat(RetryAfter.of(100, null)).isEqualTo(1);
        assertThat(RetryAfter.of(101, null)).isEqualTo(2);
        assertThat(RetryAfter.of(1_000_000, null)).isEqualTo(RetryAfter.MAX_SECONDS);
    }

    @Test
    void withAnEstimateATenthOfTheWaitBetweenOneAndTwentySeconds() {
        assertThat(RetryAfter.of(50, 5L)).isEqualTo(1);
        assertThat(RetryAfter.of(50, 120L)).isEqualTo(12);
        assertThat(RetryAfter.of(50, 3_600L)).isEqualTo(RetryAfter.MAX_SECONDS);
    }

    @Test
    void neverLongerThanAThirdOfAbandonAfterSoOneLostPollCostsNoPlace() {
        assertThat(RetryAfter.of(1_000_000, null, Duration.ofSeconds(30))).isEqualTo(10);
        assertThat(RetryAfter.of(1_000_000, null, Duration.ofSeconds(3))).isEqualTo(1);
        assertThat(RetryAfter.of(1_000_000, null, NEVER)).isEqualTo(RetryAfter.MAX_SECONDS);
    }

    @Test
    void aPreQueuedShopperMayComeBackWithinAbandonAfterOfTheOpeningOrArrivalTtlIfThatIsShorter() {
        Instant opensAt = Instant.parse("2026-12-24T01:00:00Z");
        assertThat(RetryAfter.comeBackBy(opensAt, Duration.ofSeconds(60), Duration.ofSeconds(60)))
                .isEqualTo(opensAt.plusSeconds(60));
        assertThat(RetryAfter.comeBackBy(opensAt, Duration.ofSeconds(30), Duration.ofSeconds(60)))
                .isEqualTo(opensAt.plusSeconds(30));
        assertThat(RetryAfter.comeBackBy(opensAt, Duration.ofSeconds(60), Duration.ofSeconds(20)))
                .as("drawn into a place at the opening: arrive within arrival-ttl").isEqualTo(opensAt.plusSeconds(20));
        assertThat(RetryAfter.comeBackBy(opensAt, NEVER, Duration.ofSeconds(45)))
                .as("places kept forever, but a place made at the opening still needs its shopper")
                .isEqualTo(opensAt.plusSeconds(45));
    }

    @Test
    void beforeAnOpeningAtTheOpeningOrAsLateAsAbandonAfterAllows() {
        assertThat(RetryAfter.beforeOpening(Duration.ofMillis(4_200), Duration.ofSeconds(60))).isEqualTo(5);
        assertThat(RetryAfter.beforeOpening(Duration.ofMinutes(5), Duration.ofSeconds(60))).isEqualTo(20);
        assertThat(RetryAfter.beforeOpening(Duration.ofMinutes(5), Duration.ofSeconds(15))).isEqualTo(5);
        assertThat(RetryAfter.beforeOpening(Duration.ofMillis(-300), NEVER)).as("just opened").isEqualTo(1);
    }

    @Test
    void aClosedRoomIsAskedRarelyButWithinAbandonAfter() {
        assertThat(RetryAfter.whileClosed(NEVER)).isEqualTo(RetryAfter.CLOSED_SECONDS);
        assertThat(RetryAfter.whileClosed(Duration.ofSeconds(60))).isEqualTo(20);
        assertThat(RetryAfter.whileClosed(Duration.ofMinutes(10))).isEqualTo(RetryAfter.CLOSED_SECONDS);
    }
}
