package io.queuegate.store;

/**
 * Where a user stands in one product's queue, as one script read it.
 *
 * @param state active, waiting or absent
 * @param rank 1-based place in line when waiting (1 = next), else 0
 * @param promoted users the same call moved into the active set (join and leave only)
 */
public record Placement(State state, long rank, long promoted) {

    public enum State { ACTIVE, WAITING, NOT_FOUND }

    static Placement fromScript(long state, long rank, long promoted) {
        State decoded = state == 1 ? State.ACTIVE : state == 0 ? State.WAITING : State.NOT_FOUND;
        return new Placement(decoded, rank, promoted);
    }
}
