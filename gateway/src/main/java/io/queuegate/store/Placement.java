package io.queuegate.store;

/**
 * Where a user stands in one product's queue, as one script read it.
 *
 * @param state active, waiting, absent, or turned away because the queue drains
 * @param rank 1-based place in line when waiting (1 = next), else 0
 * @param promoted users the same call moved into the active set (join only)
 * @param admissionRate the product's measured admissions per second (0 while unknown)
 */
public record Placement(State state, long rank, long promoted, double admissionRate) {

    public enum State { ACTIVE, WAITING, NOT_FOUND, DRAINING }

    static Placement fromScript(long state, long rank, long promoted, long ratePerMillionSeconds) {
        State decoded = switch ((int) state) {
            case 1 -> State.ACTIVE;
            case 0 -> State.WAITING;
            case -2 -> State.DRAINING;
            default -> State.NOT_FOUND;
        };
        return new Placement(decoded, rank, promoted, ratePerMillionSeconds / 1_000_000.0);
    }
}
