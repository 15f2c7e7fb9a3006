package io.queuegate.ops;

import java.time.Duration;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Time-in-queue percentiles from the {@code queuegate.wait} histogram, as the console shows them. */
class WaitPercentilesTest {

    @Test
    void interpolatesWithinTheBucketThePercentileFallsIn() {
        double[] bounds = { 1, 2, 4, 8 };
        double[] cumulative = { 0, 10, 10, 20 };
        // The 10th of 20 is the last of the (1, 2] bucket; the 18th is 8/10 into (4, 8].
        assertThat(WaitPercentiles.quantile(0.5, bounds, cumulative, 20)).isEqualTo(2.0);
        assertThat(WaitPercentiles.quantile(0.9, bounds, cumulative, 20)).isEqualTo(7.2);
        assertThat(WaitPercentiles.quantile(0.25, bounds, cumulative, 20)).isEqualTo(1.5);
    }

    @Test
    void saysTheLastBoundWhenThePercentileLiesBeyondEveryBucket() {
        assertThat(WaitPercentiles.quantile(0.9, new double[] { 1, 2 }, new double[] { 1, 1 }, 10)).isEqualTo(2.0);
    }

    @Test
    void hasNoPercentilesBeforeAnyWait() {
        assertThat(WaitPercentiles.quantile(0.5, new double[] { 1 }, new double[] { 0 }, 0)).isNull();
        WaitPercentiles.Waits none = new WaitPercentiles(new SimpleMeterRegistry()).of("42");
        assertThat(none.p50Seconds()).isNull();
        assertThat(none.count()).isZero();
        assertThat(WaitPercentiles.NONE.of("42").p90Seconds()).isNull();
    }

    @Test
    void readsTheWaitTimersOfEveryRouteOfTheProductFromTheRegistryQueueMetricsWrites() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        QueueMetrics metrics = new QueueMetrics(registry, new ProductTags(10, java.util.List.of()));
        for (int i = 0; i < 50; i++) {
            metrics.admitted("42", "products", "u" + i, Duration.ofSeconds(10));
            metrics.admitted("42", "mobile", "m" + i, Duration.ofSeconds(100));
        }
        metrics.admitted("7", "products", "x", Duration.ofHours(1));

        WaitPercentiles.Waits waits = new WaitPercentiles(registry).of("42");

        assertThat(waits.count()).isEqualTo(100);
        // Half waited 10 s, half 100 s: the median is at the top of the 10 s half, p90 among the 100 s.
        assertThat(waits.p50Seconds()).isBetween(8.0, 12.5);
        assertThat(waits.p90Seconds()).isBetween(90.0, 115.0);
        assertThat(new WaitPercentiles(registry).of("7").p50Seconds()).isGreaterThan(3000.0);
    }
}
