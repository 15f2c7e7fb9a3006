package io.queuegate.store;

import io.queuegate.room.RoomMode;
import io.queuegate.room.Stock;

/**
 * One product's queue as an operator sees it, read in one script call.
 *
 * @param waiting users in line
 * @param active users holding an unexpired session
 * @param routeMaxActive max-active as the last join stored it, or {@code null} before any join
 * @param maxOverride the operator's max-active, or {@code null} when none is set
 * @param mode the room mode an operator set
 * @param draining whether the queue takes nobody new
 * @param admissionRate the measured admissions per second (0 while unknown)
 * @param known whether Redis holds any state of the product
 * @param opening the last opening of a scheduled sale, or {@code null} before any
 * @param seedCommitment the commitment to the seed of the last pre-queue draw (pending or closed),
 *                       SHA-256 of the seed, hex; {@code null} when there is none
 * @param abandoned users dropped from the line as not seen for abandon-after, in total since
 *                  Redis made the product's state
 * @param stock what the product has left to sell, {@code null} while unknown
 */
public record QueueSnapshot(long waiting, long active, Integer routeMaxActive, Integer maxOverride, RoomMode mode,
        boolean draining, double admissionRate, boolean known, Opening opening, String seedCommitment,
        long abandoned, StockState stock) {

    /** A snapshot of a product whose stock is unknown. */
    public QueueSnapshot(long waiting, long active, Integer routeMaxActive, Integer maxOverride, RoomMode mode,
            boolean draining, double admissionRate, boolean known, Opening opening, String seedCommitment,
            long abandoned) {
        this(waiting, active, routeMaxActive, maxOverride, mode, draining, admissionRate, known, opening, seedCommitment,
                abandoned, null);
    }

    /**
     * The stock as operators see it.
     *
     * @param left units not sold yet, the admitted shoppers' carts included
     * @param unitsPerShopper how many units one admission may buy
     * @param source who said it last: {@code shop} (its {@code Queue-Stock} header) or {@code set}
     *               (an operator, or the product's setting)
     * @param soldOutAt when it ran out (epoch ms), or {@code null} while some is left
     */
    public record StockState(long left, int unitsPerShopper, String source, Long soldOutAt) {
    }

    /**
     * How a scheduled sale's pre-queue was drawn: enough to recompute the order. The tickets
     * {@code firstTicket} to {@code firstTicket + preQueued - 1} stand in line in the order of a
     * permutation keyed by the seed ({@code line.lua}'s {@code permute}).
     *
     * @param opensAt the opens-at that was opened (epoch ms)
     * @param seed the draw's seed, or {@code null} when nobody was in the pre-queue
     * @param preQueued how many tickets the draw placed
     * @param firstTicket the first ticket of the draw, or -1 when nobody was in the pre-queue
     */
    public record Opening(long opensAt, String seed, long preQueued, long firstTicket) {
    }

    /** Whether promotion is stopped (the mode {@code queue-all}). */
    public boolean paused() {
        return mode == RoomMode.QUEUE_ALL;
    }

    /** The max-active that applies now: the operator's, else the route's; {@code null} when unknown. */
    public Integer capacity() {
        return maxOverride != null ? maxOverride : routeMaxActive;
    }
}
