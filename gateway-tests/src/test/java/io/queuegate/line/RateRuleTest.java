package io.queuegate.line;

import java.time.Duration;

import io.queuegate.store.ProductRules;
import io.queuegate.support.ScriptRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The admission rate behind every wait estimate is one rule written twice: {@code fill.lua}'s
 * {@code admission_rate} for answers from Redis and {@link LineView#admissionRate} for answers
 * from an instance's memory. Both run here on the same admissions and the same clock, so a shopper
 * hears the same estimate from either; and the rule holds a bursty line's estimate still between
 * admissions instead of letting it climb and drop.
 */
class RateRuleTest {

    private static final String PID = "rate";
    private static final long START = 1_000_000L;

    @RegisterExtension
    static final ScriptRedis redis = new ScriptRedis();

    @Test
    void redisAndMemoryGiveTheSameRateAtEveryMomentOfABurstyLine() {
        long[] admissions = {0, 400, 9_000, 9_100, 30_000, 31_000, 47_500, 65_000, 66_000, 125_000, 200_000};
        int user = 0;
        for (long at : admissions) {
            join("u" + user++, START + at);
            for (long later : new long[] {0, 1, 250, 4_999, 5_000, 12_000, 40_000, 90_000}) {
                long now = START + at + later;
                assertThat(fromMemory(now)).as("%d ms after the admission at %d", later, at)
                        .isCloseTo(fromRedis(now), within(0.000_002));
            }
        }
    }

    @Test
    void aLineAdmittedInBurstsKeepsAStillEstimateBetweenAdmissionsAndOnlyALongSilenceLowersIt() {
        // Two places, sessions of 35 s: one admission every 17.5 s or so.
        long at = START;
        for (int i = 0; i < 8; i++) {
            join("u" + i, at);
            at += 17_500;
        }
        long last = at - 17_500;
        double justAfter = fromRedis(last + 1_000);
        assertThat(fromRedis(last + 14_000)).as("within the gap the pace predicts").isEqualTo(justAfter);
        assertThat(fromMemory(last + 14_000)).isCloseTo(justAfter, within(0.000_002));
        assertThat(fromRedis(last + 120_000)).as("a silence of minutes lowers it").isLessThan(justAfter / 2);
    }

    private static void join(String user, long now) {
        redis.scripts().join(PID, user, now, ProductRules.plain(1_000_000, Duration.ofMinutes(10), "scheduler"),
                Duration.ofHours(1));
    }

    private static double fromRedis(long now) {
        return redis.scripts().status(PID, "nobody", now).placement().admissionRate();
    }

    private static double fromMemory(long now) {
        return LineView.of(now, 0, redis.scripts().scripts().view().run(PID, null, -1).block(Duration.ofSeconds(10)),
                null).admissionRate(now);
    }
}
