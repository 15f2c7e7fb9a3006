package io.queuegate.line;

import java.time.Duration;
import java.time.Instant;

import io.queuegate.room.Placement;
import io.queuegate.room.Stock;

/**
 * Where a shopper in line stands, worked out by this instance from its view of the line.
 *
 * @param placement waiting (with the rank), in a sale's pre-queue (with its size) or turned away
 *                  by a closed room
 * @param opensAt the sale's opens-at as Redis holds it, or {@code null}
 * @param abandonAfter the product's abandon-after as Redis holds it, {@link Duration#ZERO} for never
 * @param seedCommitment the commitment to the seed of the product's last pre-queue draw, or
 *                       {@code null} when it has none
 * @param stock what the product has left to sell, {@code null} while unknown
 */
public record LocalStanding(Placement placement, Instant opensAt, Duration abandonAfter, String seedCommitment,
        Stock stock) {
}
