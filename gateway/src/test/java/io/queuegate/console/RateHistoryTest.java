package io.queuegate.console;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The console's per-product chart data: a bounded ring of samples. */
class RateHistoryTest {

    private static final long T0 = 1_800_000_000_000L;

    @Test
    void keepsTheNewestSamplesOldestFirstAndNoMoreThanItHolds() {
        RateHistory history = new RateHistory(3, T0 / 1000);
        for (int i = 0; i < 5; i++) {
            history.add(T0 + i * 10_000L, i * 0.5);
        }

        double[][] points = history.since(0);

        assertThat(points).hasDimensions(3, 2);
        assertThat(points[0]).containsExactly(T0 / 1000 + 20, 1.0);
        assertThat(points[2]).containsExactly(T0 / 1000 + 40, 2.0);
    }

    @Test
    void leavesOutSamplesOlderThanTheWindow() {
        RateHistory history = new RateHistory(10, T0 / 1000);
        history.add(T0, 1);
        history.add(T0 + 60_000, 2);
        history.add(T0 + 120_000, 3.14159);

        double[][] points = history.since(T0 + 60_000);

        assertThat(points).hasNumberOfRows(2);
        assertThat(points[1][1]).isEqualTo(3.142);
        assertThat(new RateHistory(4, T0 / 1000).since(0)).isEmpty();
    }
}
