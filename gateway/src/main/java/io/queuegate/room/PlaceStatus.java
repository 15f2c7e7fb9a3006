package io.queuegate.room;

import java.time.Duration;
import java.time.Instant;

/**
 * Where a user stands, read without joining.
 *
 * @param opensAt the product's opens-at, or {@code null}
 * @param abandonAfter the product's abandon-after, {@link Duration#ZERO} for never
 * @param timed whether the product's promotion runs on a clock of its own (opens-at or a pace)
 * @param ticket the user's ticket while in line (negative in the invited line), else {@code null}
 * @param seedCommitment the commitment to the seed of the product's last pre-queue draw, or
 *                       {@code null} when it has none
 * @param stock what the product has left to sell, {@code null} while unknown
 */
public record PlaceStatus(Placement placement, Instant opensAt, Duration abandonAfter, boolean timed, Long ticket,
        String seedCommitment, Stock stock) {

    /** A status of a product whose stock is unknown. */
    public PlaceStatus(Placement placement, Instant opensAt, Duration abandonAfter, boolean timed, Long ticket,
            String seedCommitment) {
        this(placement, opensAt, abandonAfter, timed, ticket, seedCommitment, null);
    }
}
