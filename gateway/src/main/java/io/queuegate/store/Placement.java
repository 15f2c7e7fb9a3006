package io.queuegate.store;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Where a user stands in one product's queue, as one script read it.
 *
 * @param state active, waiting (or in a sale's pre-queue), absent, or turned away
 * @param rank 1-based place in line when waiting (1 = next); in the pre-queue, how many are in
 *             it (a place is only given at opening); else 0
 * @param promoted users the same call moved into the active set (join only)
 * @param admissionRate the product's measured admissions per second (0 while unknown)
 * @param opensAt the product's opens-at, or {@code null} (read by status only)
 * @param abandonAfter the product's abandon-after, {@link Duration#ZERO} for never (read by status only)
 */
public record Placement(State state, long rank, long promoted, double admissionRate, Instant opensAt,
        Duration abandonAfter) {

    public enum State {
        ACTIVE, WAITING, NOT_FOUND, DRAINING,
        /** Waiting for a sale to open; places are drawn at opening. */
        PRE_QUEUE,
        /** The sale has closed and takes nobody new. */
        SALE_ENDED,
        /** An operator closed the room. */
        ROOM_CLOSED,
        /** Active, but another request of the session is completing it (complete-on) right now. */
        COMPLETING
    }

    static Placement fromScript(long state, long rank, long promoted, long ratePerMillionSeconds) {
        State decoded = switch ((int) state) {
            case 1 -> State.ACTIVE;
            case 0 -> State.WAITING;
            case 2 -> State.PRE_QUEUE;
            case -2 -> State.DRAINING;
            case -3 -> State.SALE_ENDED;
            case -4 -> State.ROOM_CLOSED;
            case -5 -> State.COMPLETING;
            default -> State.NOT_FOUND;
        };
        return new Placement(decoded, rank, promoted, ratePerMillionSeconds / 1_000_000.0, null, Duration.ZERO);
    }

    /** A status script's answer: {state, rank, rate, opens, abandon, timed}. */
    static Placement fromStatus(List<Long> r) {
        Placement placement = fromScript(r.get(0), r.get(1), 0, r.get(2));
        return new Placement(placement.state, placement.rank, 0, placement.admissionRate,
                r.get(3) < 0 ? null : Instant.ofEpochMilli(r.get(3)), Duration.ofMillis(r.get(4)));
    }
}
