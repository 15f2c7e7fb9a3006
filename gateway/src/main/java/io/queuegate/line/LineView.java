package io.queuegate.line;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;

import io.queuegate.store.Placement;
import io.queuegate.store.RoomMode;
import io.queuegate.store.script.ViewScript;

/**
 * One instance's copy of the moving parts of a product's line, as {@code view.lua} read them at
 * {@code readAt}: enough to tell a shopper in line their rank without asking Redis. A rank worked
 * out from it is the rank at {@code readAt}: since then the head has only moved forward and places
 * have only been given up, so the rank can be too large by what happened in between, never too
 * small. Whatever it cannot answer exactly as the scripts would (the head has reached the ticket,
 * the ticket was given up, a sale is opening, a room in passthrough) it leaves to Redis.
 *
 * @param readAt when the read was sent (epoch ms): the view is at least this fresh
 * @param admissionsHeard how many admissions to the product this instance had heard of when the
 *                        read was sent ({@link LineViews#admitted})
 * @param left the positions of the places given up ahead of the head, ascending
 * @param leftComplete false when Redis holds too many places given up to send them
 * @param seedCommitment the commitment to the seed of the product's last draw, or {@code null}:
 *                       answers from memory show it as Redis's answers do
 */
record LineView(long readAt, long admissionsHeard, boolean known, long head, long last, long leftVersion, long leftCount, long[] left,
        boolean leftComplete, long drawFrom, long drawTo, String seed, String seedCommitment, long opens, long opened,
        RoomMode mode, double rate, long rateAt, long rateSince, long abandonAfterMillis) {

    /** The admission rate's time constant and warm-up, as {@code fill.lua} keeps it. */
    private static final double RATE_TAU_MS = 60_000;
    private static final long RATE_WARMUP_MS = 5_000;

    /**
     * A view from a script's reply; {@code previous} supplies the places given up when the reply
     * says they did not change.
     */
    static LineView of(long readAt, long admissionsHeard, ViewScript.Result read, LineView previous) {
        long[] left = read.leftChanged() || previous == null ? read.left() : previous.left;
        return new LineView(readAt, admissionsHeard, read.known(), read.head(), read.last(), read.leftVersion(), read.leftCount(), left,
                read.leftComplete() && left.length == read.leftCount(), read.drawFrom(), read.drawTo(), read.seed(),
                read.seedCommitment(), read.opens(), read.opened(), read.mode(), read.rate(), read.rateAt(), read.rateSince(),
                read.abandonAfter());
    }

    /**
     * Where the holder of {@code ticket} stands at {@code now}, as {@code join.lua} would answer a
     * poll of theirs ({@code asJoin}: a closed room turns them away) or {@code status.lua} a
     * question (which only tells the place); {@code null} when only Redis can say.
     */
    Placement placementOf(long ticket, long now, boolean asJoin) {
        if (!known || ticket < 1 || ticket > last || mode == RoomMode.PASSTHROUGH) {
            return null;
        }
        if (asJoin && mode == RoomMode.CLOSED) {
            return new Placement(Placement.State.ROOM_CLOSED, 0, 0);
        }
        if (opens >= 0) {
            if (now < opens) {
                return new Placement(Placement.State.PRE_QUEUE, Math.max(0, last - head + 1 - leftCount),
                        admissionRate(now));
            }
            if (opened != opens) {
                // The first request after the opening closes the draw: a write.
                return null;
            }
        }
        long position = positionOf(ticket);
        if (position < head || !leftComplete || Arrays.binarySearch(left, position) >= 0) {
            // Admitted, dropped or given up since: Redis knows which.
            return null;
        }
        long givenUpAhead = firstAtOrAbove(position) - firstAtOrAbove(head);
        return new Placement(Placement.State.WAITING, position - head + 1 - givenUpAhead, admissionRate(now));
    }

    Instant opensAt() {
        return opens < 0 ? null : Instant.ofEpochMilli(opens);
    }

    Duration abandonAfter() {
        return Duration.ofMillis(abandonAfterMillis);
    }

    /** A ticket's place in line: the ticket itself, unless a closed draw placed it. */
    private long positionOf(long ticket) {
        if (drawFrom >= 0 && drawTo >= drawFrom && ticket >= drawFrom && ticket <= drawTo) {
            return drawFrom + DrawOrder.permute(seed, drawTo - drawFrom + 1, ticket - drawFrom);
        }
        return ticket;
    }

    /** The index of the first place given up at or after {@code position}. */
    private int firstAtOrAbove(long position) {
        int low = 0;
        int high = left.length;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (left[middle] < position) {
                low = middle + 1;
            }
            else {
                high = middle;
            }
        }
        return low;
    }

    /**
     * The admission rate at {@code now}, as {@code fill.lua}'s {@code rate_reply} works it out
     * (admissions per second, cut to six decimals like the scripts' replies).
     */
    private double admissionRate(long now) {
        if (rate < 0 || now - rateSince < RATE_WARMUP_MS) {
            return 0;
        }
        double decayed = rate * Math.exp(-Math.max(0, now - rateAt) / RATE_TAU_MS);
        double honest = decayed / (1 - Math.exp(-(now - rateSince) / RATE_TAU_MS));
        return Math.floor(honest * 1_000_000) / 1_000_000.0;
    }
}
