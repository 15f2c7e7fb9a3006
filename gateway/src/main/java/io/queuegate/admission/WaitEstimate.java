package io.queuegate.admission;

/**
 * How long a waiting shopper will likely wait: their rank divided by the product's measured
 * admission rate. The rate is an exponentially weighted average over about a minute, kept in
 * Redis by the promotion script and shared by every instance, so the estimate follows the real
 * pace without jumping with each single admission.
 */
public final class WaitEstimate {

    /** Below one admission per 1000 s the rate says nothing useful: no estimate. */
    static final double MIN_RATE = 0.001;

    /** Estimates beyond six hours are reported as six hours: nobody plans further ahead. */
    public static final long MAX_SECONDS = 6 * 3600;

    private WaitEstimate() {
    }

    /**
     * @param rank 1-based place in line
     * @param admissionsPerSecond the product's admission rate
     * @return the estimate in whole seconds (at least 1), or {@code null} while no rate is known
     */
    public static Long seconds(long rank, double admissionsPerSecond) {
        if (admissionsPerSecond < MIN_RATE || rank < 1) {
            return null;
        }
        return Math.max(1, Math.min(MAX_SECONDS, (long) Math.ceil(rank / admissionsPerSecond)));
    }
}
