package io.queuegate.console;

/**
 * One product's admission rate over the console's history window: a ring of the last
 * {@code capacity} samples, each its time and value. Seconds are kept relative to a base and
 * values as floats, so a point costs 8 bytes.
 */
final class RateHistory {

    private final long baseSecond;
    private final int[] seconds;
    private final float[] rates;
    private int next;
    private int size;

    RateHistory(int capacity, long baseSecond) {
        this.baseSecond = baseSecond;
        this.seconds = new int[capacity];
        this.rates = new float[capacity];
    }

    synchronized void add(long epochMillis, double rate) {
        seconds[next] = (int) (epochMillis / 1000 - baseSecond);
        rates[next] = (float) rate;
        next = (next + 1) % seconds.length;
        size = Math.min(size + 1, seconds.length);
    }

    /**
     * The samples taken at or after {@code fromMillis}, oldest first, as {@code [epochSecond, rate]}
     * pairs; the rate rounded to thousandths of an admission per second.
     */
    synchronized double[][] since(long fromMillis) {
        long from = fromMillis / 1000 - baseSecond;
        int oldest = (next - size + seconds.length) % seconds.length;
        int skip = 0;
        while (skip < size && seconds[(oldest + skip) % seconds.length] < from) {
            skip++;
        }
        double[][] points = new double[size - skip][];
        for (int i = skip; i < size; i++) {
            int at = (oldest + i) % seconds.length;
            points[i - skip] = new double[] { baseSecond + seconds[at], Math.round(rates[at] * 1000) / 1000.0 };
        }
        return points;
    }
}
