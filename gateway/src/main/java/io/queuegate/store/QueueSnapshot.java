package io.queuegate.store;

import java.util.List;

/**
 * One product's queue as an operator sees it, read in one script call.
 *
 * @param waiting users in line
 * @param active users holding an unexpired session
 * @param routeMaxActive max-active as the last join stored it, or {@code null} before any join
 * @param maxOverride the operator's max-active, or {@code null} when none is set
 * @param paused whether promotion is stopped
 * @param draining whether the queue takes nobody new
 * @param admissionRate the measured admissions per second (0 while unknown)
 * @param known whether Redis holds any state of the product
 */
public record QueueSnapshot(long waiting, long active, Integer routeMaxActive, Integer maxOverride, boolean paused,
        boolean draining, double admissionRate, boolean known) {

    /** The max-active that applies now: the operator's, else the route's; {@code null} when unknown. */
    public Integer capacity() {
        return maxOverride != null ? maxOverride : routeMaxActive;
    }

    static QueueSnapshot fromScript(List<Long> r) {
        return new QueueSnapshot(r.get(0), r.get(1), orNull(r.get(2)), orNull(r.get(3)), r.get(4) == 1,
                r.get(5) == 1, r.get(6) / 1_000_000.0, r.get(7) == 1);
    }

    private static Integer orNull(long value) {
        return value < 0 ? null : (int) value;
    }
}
