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
 * @param mode the room mode an operator set: {@code queue}, {@code passthrough}, {@code queue-all}
 *             or {@code closed}
 * @param opening the last opening of a scheduled sale, or {@code null} before any
 */
public record QueueSnapshot(long waiting, long active, Integer routeMaxActive, Integer maxOverride, boolean paused,
        boolean draining, double admissionRate, boolean known, String mode, Opening opening) {

    /** The room modes, in the order {@code snapshot.lua} numbers them. */
    public static final List<String> MODES = List.of("queue", "passthrough", "queue-all", "closed");

    /**
     * How a scheduled sale's pre-queue was drawn: enough to recompute the order. The tickets
     * {@code firstTicket} to {@code firstTicket + preQueued - 1} stand in line in the order of a
     * permutation keyed by the seed ({@code line.lua}'s {@code permute}).
     *
     * @param opensAt the opens-at that was opened (epoch ms)
     * @param seed the draw's seed, or -1 when nobody was in the pre-queue
     * @param preQueued how many tickets the draw placed
     * @param firstTicket the first ticket of the draw, or -1 when nobody was in the pre-queue
     */
    public record Opening(long opensAt, long seed, long preQueued, long firstTicket) {
    }

    /** The max-active that applies now: the operator's, else the route's; {@code null} when unknown. */
    public Integer capacity() {
        return maxOverride != null ? maxOverride : routeMaxActive;
    }

    static QueueSnapshot fromScript(List<Long> r) {
        return new QueueSnapshot(r.get(0), r.get(1), orNull(r.get(2)), orNull(r.get(3)), r.get(4) == 1,
                r.get(5) == 1, r.get(6) / 1_000_000.0, r.get(7) == 1, MODES.get(r.get(8).intValue()),
                r.get(10) < 0 ? null : new Opening(r.get(10), r.get(11), r.get(12), r.get(13)));
    }

    private static Integer orNull(long value) {
        return value < 0 ? null : (int) value;
    }
}
