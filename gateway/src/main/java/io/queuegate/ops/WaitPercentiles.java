package io.queuegate.ops;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;

/**
 * Time-in-queue percentiles of one product, read from this instance's {@code queuegate.wait}
 * timer: its histogram buckets (one timer per route, merged), interpolated within the bucket the
 * percentile falls in, as Prometheus' {@code histogram_quantile} does. Only the waits this
 * instance timed count, since its start; a product beyond {@code queuegate.metrics.max-products}
 * has no timer of its own and so no percentiles.
 */
public final class WaitPercentiles {

    /** No registry: no percentiles. */
    public static final WaitPercentiles NONE = new WaitPercentiles(null);

    private final MeterRegistry registry;

    public WaitPercentiles(MeterRegistry registry) {
        this.registry = registry;
    }

    /**
     * @param p50Seconds {@code null} while nobody has been admitted after a wait
     * @param count the waits timed
     */
    public record Waits(Double p50Seconds, Double p90Seconds, long count) {

        static final Waits NONE = new Waits(null, null, 0);
    }

    public Waits of(String productId) {
        if (registry == null) {
            return Waits.NONE;
        }
        Map<Double, Double> cumulative = new TreeMap<>();
        long count = 0;
        for (Timer timer : registry.find("queuegate.wait").tag("product", productId).timers()) {
            HistogramSnapshot snapshot = timer.takeSnapshot();
            count += snapshot.count();
            add(snapshot.histogramCounts(), cumulative);
        }
        if (count == 0 || cumulative.isEmpty()) {
            return new Waits(null, null, count);
        }
        double[] bounds = cumulative.keySet().stream().mapToDouble(Double::doubleValue).toArray();
        double[] counts = cumulative.values().stream().mapToDouble(Double::doubleValue).toArray();
        return new Waits(quantile(0.5, bounds, counts, count), quantile(0.9, bounds, counts, count), count);
    }

    /**
     * Adds one timer's buckets to {@code into} as cumulative counts. Registries differ: Prometheus'
     * counts are cumulative, others may count per bucket; a count that falls from one bucket to the
     * next can only be per bucket.
     */
    private static void add(CountAtBucket[] buckets, Map<Double, Double> into) {
        boolean perBucket = false;
        for (int i = 1; i < buckets.length; i++) {
            if (buckets[i].count() < buckets[i - 1].count()) {
                perBucket = true;
                break;
            }
        }
        double running = 0;
        for (CountAtBucket bucket : buckets) {
            running = perBucket ? running + bucket.count() : bucket.count();
            double bound = bucket.bucket(TimeUnit.SECONDS);
            // An open-ended (+Inf) bucket has no upper bound to interpolate to: the last finite one answers.
            if (Double.isFinite(bound)) {
                into.merge(bound, running, Double::sum);
            }
        }
    }

    /**
     * The {@code q} quantile of {@code total} observations whose cumulative counts at the upper
     * bounds {@code bounds} (ascending) are {@code counts}: linear within its bucket, from 0 for
     * the first one; the last bound when it lies beyond them all. Rounded to tenths of a second.
     */
    static Double quantile(double q, double[] bounds, double[] counts, long total) {
        if (total <= 0 || bounds.length == 0) {
            return null;
        }
        double rank = q * total;
        double lowerBound = 0;
        double lowerCount = 0;
        for (int i = 0; i < bounds.length; i++) {
            if (counts[i] >= rank && counts[i] > lowerCount) {
                double within = (rank - lowerCount) / (counts[i] - lowerCount);
                return round(lowerBound + within * (bounds[i] - lowerBound));
            }
            lowerBound = bounds[i];
            lowerCount = counts[i];
        }
        return round(bounds[bounds.length - 1]);
    }

    private static double round(double seconds) {
        return Math.round(seconds * 10) / 10.0;
    }
}
