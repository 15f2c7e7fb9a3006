package io.queuegate.room;

/**
 * One user's outcome of a join.
 *
 * @param enqueued whether this call put the user at the back of the line (a new join, not a poll)
 * @param ticket the user's ticket while in line (negative in the invited line of
 *               {@code invites: priority}), else {@code null}
 * @param seedCommitment the commitment to the seed of the product's last pre-queue draw, or
 *                       {@code null} when it has none
 * @param sessionEnd when the user's session ends (epoch ms) while active, else {@code null}
 * @param stock what the product has left to sell, {@code null} while unknown
 */
public record Joined(Placement placement, boolean enqueued, Long ticket, String seedCommitment, Long sessionEnd,
        Stock stock) {

    /** An outcome without a session (waiting, or refused), of a product whose stock is unknown. */
    public Joined(Placement placement, boolean enqueued, Long ticket, String seedCommitment) {
        this(placement, enqueued, ticket, seedCommitment, null, null);
    }

    /** An outcome of a product whose stock is unknown. */
    public Joined(Placement placement, boolean enqueued, Long ticket, String seedCommitment, Long sessionEnd) {
        this(placement, enqueued, ticket, seedCommitment, sessionEnd, null);
    }
}
