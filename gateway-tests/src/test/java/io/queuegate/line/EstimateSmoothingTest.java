package io.queuegate.line;

import java.time.Duration;

import io.queuegate.admission.WaitEstimate;
import io.queuegate.store.ProductRules;
import io.queuegate.support.ScriptRedis;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wait estimate a shopper is told ({@code estimatedWaitSeconds}: their rank over the product's
 * admission rate, from Redis or from an instance's memory) against the truth, on a real Redis with
 * a clock the test controls: after the line has kept its pace for ten minutes, a shopper watches
 * their estimate for a minute. While the pace holds, the estimate stays within a fifth of the
 * time they really have left to wait, and it never grows while their rank stands still, whether
 * the line admits one shopper every few seconds or two together (two places whose sessions end
 * at once) every 40 or 90 seconds. When the line stops, it does grow: it does not lie.
 */
class EstimateSmoothingTest {

    private static final String PID = "smooth";
    private static final long START = 1_000_000L;
    private static final long WARM_UP = Duration.ofMinutes(10).toMillis();
    private static final long WATCHED = Duration.ofMinutes(1).toMillis();
    private static final long TICK = 250;

    @RegisterExtension
    static final ScriptRedis redis = new ScriptRedis();

    private int users;

    /**
     * @param together how many are admitted at once
     * @param every the time between two admissions (ms)
     * @param rank the watching shopper's rank just after an admission
     * @param truthful whether the estimate is held to a fifth of the truth: with 90 s between
     *                 admissions and 24 ahead, holding still between admissions is itself up to a
     *                 fifth off just before the next one
     */
    @ParameterizedTest(name = "{0} every {1} ms, rank {2}")
    @CsvSource({ "1, 2000, 60, true", "1, 5000, 30, true", "2, 40000, 40, true", "2, 90000, 24, false" })
    void whileThePaceHoldsTheEstimateStaysNearTheTruthAndNeverGrowsWhileTheRankStandsStill(int together, long every,
            long rank, boolean truthful) {
        long at = START;
        while (at < START + WARM_UP) {
            admit(together, at);
            at += every;
        }
        long watchFrom = at - every;
        // Admitted in the admission that lets the rank-th shopper ahead of them through.
        long admittedAt = watchFrom + (rank + together - 1) / together * every;
        long previousRank = -1;
        long[] previous = { Long.MAX_VALUE, Long.MAX_VALUE };
        long nextAdmission = watchFrom + every;
        long admitted = 0;
        for (long now = watchFrom + 1; now <= watchFrom + WATCHED; now += TICK) {
            if (now >= nextAdmission) {
                admit(together, nextAdmission);
                admitted += together;
                nextAdmission += every;
            }
            long rankNow = rank - admitted;
            double truth = (admittedAt - now) / 1000.0;
            double[] rates = { fromRedis(now), fromMemory(now) };
            for (int source = 0; source < 2; source++) {
                String from = source == 0 ? "Redis" : "memory";
                Long estimate = WaitEstimate.seconds(rankNow, rates[source]);
                assertThat(estimate).as("from %s at +%d ms", from, now - watchFrom).isNotNull();
                if (truthful) {
                    assertThat((double) estimate).as("from %s at +%d ms, rank %d: the truth is %.1f s", from,
                            now - watchFrom, rankNow, truth).isBetween(truth * 0.8, truth * 1.2);
                }
                if (rankNow == previousRank) {
                    assertThat(estimate).as("from %s at +%d ms, rank %d standing still", from, now - watchFrom,
                            rankNow).isLessThanOrEqualTo(previous[source]);
                }
                previous[source] = estimate;
            }
            previousRank = rankNow;
        }
    }

    @ParameterizedTest(name = "{0} every {1} ms")
    @CsvSource({ "1, 2000", "2, 90000" })
    void whenTheLineStopsTheEstimateGrows(int together, long every) {
        long at = START;
        while (at < START + WARM_UP) {
            admit(together, at);
            at += every;
        }
        long last = at - every;
        Long atTheLast = WaitEstimate.seconds(20, fromRedis(last + 1));
        long later = last + every * 2 + Duration.ofMinutes(1).toMillis();
        Long stopped = WaitEstimate.seconds(20, fromRedis(later));
        assertThat(stopped).as("two gaps and a minute without an admission").isGreaterThan(atTheLast * 2);
        assertThat(WaitEstimate.seconds(20, fromMemory(later))).isEqualTo(stopped);
    }

    private void admit(int together, long now) {
        for (int i = 0; i < together; i++) {
            redis.scripts().join(PID, "u" + users++, now, ProductRules.plain(1_000_000, Duration.ofMinutes(10),
                    "scheduler"), Duration.ofHours(1));
        }
    }

    private static double fromRedis(long now) {
        return redis.scripts().status(PID, "nobody", now).placement().admissionRate();
    }

    private static double fromMemory(long now) {
        return LineView.of(now, 0, redis.scripts().scripts().view().run(PID, null, -1).block(Duration.ofSeconds(10)),
                null).admissionRate(now);
    }
}
