package io.queuegate.bench;

import java.util.Arrays;

/** A bench's rounds of one figure: the median they are read by, and how far they spread. */
final class Rounds {

    /**
     * The most a baseline's rounds may spread, (max − min) ÷ median, for a run to be written: beyond
     * it the machine moved more than the differences being measured.
     */
    static final double MAX_BASELINE_SPREAD = 0.30;

    private Rounds() {
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** (max − min) ÷ median; infinite when the median is 0. */
    static double spread(double[] values) {
        double median = median(values);
        double min = Arrays.stream(values).min().orElse(0);
        double max = Arrays.stream(values).max().orElse(0);
        return median == 0 ? Double.POSITIVE_INFINITY : (max - min) / median;
    }
}
