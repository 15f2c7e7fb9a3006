package io.queuegate.line;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;

import io.queuegate.room.Placement;
import io.queuegate.room.RoomMode;
import io.queuegate.room.Stock;
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
 * @param invited the invited line ({@code invites: priority}), served before this one
 * @param invitedJoinsHeard how many places in the invited line this instance had heard of when
 *                          the read was sent ({@link LineViews#invitedJoined})
 * @param returning how many places reclaimed after a loss wait ahead of both lines
 * @param epoch the epoch of the Redis data it was read in: it answers only tokens of the same
 *              epoch (a token of another one may prove a place Redis lost, which only Redis can
 *              bring back), {@code null} when unknown
 * @param stock what the product has left to sell, {@code null} while unknown: sold out, a shopper
 *              in line is told so from memory too
 * @param rateGap the longest recent gap between admissions (ms), which the estimate holds still
 *                through; 0 when none is known
 */
record LineView(long readAt, long admissionsHeard, boolean known, long head, long last, long leftVersion, long leftCount, long[] left,
        boolean leftComplete, long drawFrom, long drawTo, String seed, String seedCommitment, long opens, long opened,
        RoomMode mode, double rate, long rateAt, long rateSince, long abandonAfterMillis, Invited invited,
        long invitedJoinsHeard, long returning, String epoch, Stock stock, long rateGap) {

    /** The admission rate's time constant, warm-up and longest gap taken as its pace, as {@code fill.lua} keeps them. */
    private static final double RATE_TAU_MS = 60_000;
    private static final long RATE_WARMUP_MS = 5_000;
    private static final double RATE_GAP_MAX_MS = 2 * RATE_TAU_MS;

    /** A view that knows no gap between admissions. */
    LineView(long readAt, long admissionsHeard, boolean known, long head, long last, long leftVersion, long leftCount,
            long[] left, boolean leftComplete, long drawFrom, long drawTo, String seed, String seedCommitment, long opens,
            long opened, RoomMode mode, double rate, long rateAt, long rateSince, long abandonAfterMillis,
            Invited invited, long invitedJoinsHeard, long returning, String epoch, Stock stock) {
        this(readAt, admissionsHeard, known, head, last, leftVersion, leftCount, left, leftComplete, drawFrom, drawTo, seed,
                seedCommitment, opens, opened, mode, rate, rateAt, rateSince, abandonAfterMillis, invited,
                invitedJoinsHeard, returning, epoch, stock, 0);
    }

    /** A view of a product without an invited line. */
    LineView(long readAt, long admissionsHeard, boolean known, long head, long last, long leftVersion, long leftCount,
            long[] left, boolean leftComplete, long drawFrom, long drawTo, String seed, String seedCommitment, long opens,
            long opened, RoomMode mode, double rate, long rateAt, long rateSince, long abandonAfterMillis) {
        this(readAt, admissionsHeard, known, head, last, leftVersion, leftCount, left, leftComplete, drawFrom, drawTo, seed,
                seedCommitment, opens, opened, mode, rate, rateAt, rateSince, abandonAfterMillis, Invited.NONE, 0, 0,
                null, null);
    }

    /**
     * The invited line's moving parts, as the main line's above; its tickets are negative in
     * tokens and replies.
     */
    record Invited(long head, long last, long leftVersion, long leftCount, long[] left, boolean leftComplete,
            long drawFrom, long drawTo) {

        static final Invited NONE = new Invited(1, 0, 0, 0, new long[0], true, -1, -1);

        /** How many hold a place in it (closed tabs included). */
        long waiting() {
            return Math.max(0, last - head + 1 - leftCount);
        }
    }

    /**
     * A view from a script's reply; {@code previous} supplies the places given up when the reply
     * says they did not change.
     */
    static LineView of(long readAt, long admissionsHeard, ViewScript.Result read, LineView previous) {
        return of(readAt, admissionsHeard, 0, read, previous, null);
    }

    static LineView of(long readAt, long admissionsHeard, long invitedJoinsHeard, ViewScript.Result read,
            LineView previous, String epoch) {
        long[] left = read.leftChanged() || previous == null ? read.left() : previous.left;
        ViewScript.Line line = read.invited();
        long[] invitedLeft = line.leftChanged() || previous == null ? line.left() : previous.invited.left;
        Invited invited = new Invited(line.head(), line.last(), line.leftVersion(), line.leftCount(), invitedLeft,
                line.leftComplete() && invitedLeft.length == line.leftCount(), line.drawFrom(), line.drawTo());
        return new LineView(readAt, admissionsHeard, read.known(), read.head(), read.last(), read.leftVersion(), read.leftCount(), left,
                read.leftComplete() && left.length == read.leftCount(), read.drawFrom(), read.drawTo(), read.seed(),
                read.seedCommitment(), read.opens(), read.opened(), read.mode(), read.rate(), read.rateAt(),
                read.rateSince(),
                read.abandonAfter(), invited, invitedJoinsHeard, read.returning(), epoch, read.stock(), read.rateGap());
    }

    /** As {@link #placementOf(long, long, boolean, long)} with no place heard of in the invited line since the read. */
    Placement placementOf(long ticket, long now, boolean asJoin) {
        return placementOf(ticket, now, asJoin, 0);
    }

    /**
     * Where the holder of {@code ticket} (negative: in the invited line) stands at {@code now}, as
     * {@code join.lua} would answer a poll of theirs ({@code asJoin}: a closed room turns them away)
     * or {@code status.lua} a question (which only tells the place); {@code null} when only Redis
     * can say. The whole invited line stands ahead of the main line, with the places made in it
     * since the read that this instance heard of ({@code invitedJoinedSince}): the one way a rank
     * in the main line grows while its holder waits.
     */
    Placement placementOf(long ticket, long now, boolean asJoin, long invitedJoinedSince) {
        boolean inInvited = ticket < 0;
        long number = Math.abs(ticket);
        if (!known || ticket == 0 || number > (inInvited ? invited.last : last) || mode == RoomMode.PASSTHROUGH) {
            return null;
        }
        if (asJoin && mode == RoomMode.CLOSED) {
            return new Placement(Placement.State.ROOM_CLOSED, 0, 0);
        }
        if (opens >= 0 && now >= opens && opened != opens) {
            // The first request after the opening closes the draw: a write.
            return null;
        }
        // Places reclaimed after a loss that the lines could not hold wait ahead of both.
        long invitedAhead = invited.waiting() + Math.max(0, invitedJoinedSince) + returning;
        // Before an opening nothing is drawn yet: position and places given up are by ticket.
        long rank = inInvited
                ? rankIn(number, invited.head, invited.left, invited.leftComplete, invited.drawFrom, invited.drawTo)
                : rankIn(number, head, left, leftComplete, drawFrom, drawTo);
        if (rank < 1) {
            // Admitted, dropped or given up since (in this sale or an earlier one): Redis knows
            // which, and joins again whoever holds no place, into the draw if it is still ahead.
            return null;
        }
        if (stock != null && stock.soldOut()) {
            // The place is kept, not served: told so as the scripts tell it.
            return new Placement(Placement.State.SOLD_OUT, 0, 0);
        }
        if (opens >= 0 && now < opens) {
            return new Placement(Placement.State.PRE_QUEUE, Math.max(0, last - head + 1 - leftCount) + invitedAhead,
                    admissionRate(now));
        }
        return new Placement(Placement.State.WAITING, inInvited ? rank + returning : rank + invitedAhead,
                admissionRate(now));
    }

    /** A ticket's rank within its own line, or 0 when only Redis can say. */
    private long rankIn(long ticket, long lineHead, long[] lineLeft, boolean lineLeftComplete, long lineDrawFrom,
            long lineDrawTo) {
        long position = positionOf(ticket, lineDrawFrom, lineDrawTo);
        if (position < lineHead || !lineLeftComplete || Arrays.binarySearch(lineLeft, position) >= 0) {
            // Admitted, dropped or given up since: Redis knows which.
            return 0;
        }
        long givenUpAhead = firstAtOrAbove(lineLeft, position) - firstAtOrAbove(lineLeft, lineHead);
        return position - lineHead + 1 - givenUpAhead;
    }

    Instant opensAt() {
        return opens < 0 ? null : Instant.ofEpochMilli(opens);
    }

    Duration abandonAfter() {
        return Duration.ofMillis(abandonAfterMillis);
    }

    /** A ticket's place in its line: the ticket itself, unless the line's closed draw placed it. */
    private long positionOf(long ticket, long lineDrawFrom, long lineDrawTo) {
        if (lineDrawFrom >= 0 && lineDrawTo >= lineDrawFrom && ticket >= lineDrawFrom && ticket <= lineDrawTo) {
            return lineDrawFrom + DrawOrder.permute(seed, lineDrawTo - lineDrawFrom + 1, ticket - lineDrawFrom);
        }
        return ticket;
    }

    /** The index of the first place given up at or after {@code position}. */
    private static int firstAtOrAbove(long[] left, long position) {
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
     * (admissions per second, cut to six decimals like the scripts' replies): corrected for the
     * warm-up, taken at the middle of the line's gap between admissions, and held still for half
     * again that gap.
     */
    double admissionRate(long now) {
        if (rate < 0 || now - rateSince < RATE_WARMUP_MS) {
            return 0;
        }
        double last = honestRate(rate, rateAt - rateSince);
        double gap = Math.min(RATE_GAP_MAX_MS, Math.max(last > 0 ? 1000 / last : 0, rateGap));
        double quiet = Math.max(0, now - rateAt - 1.5 * gap);
        double held = gap / 2 + quiet;
        double honest = honestRate(rate * Math.exp(-held / RATE_TAU_MS), rateAt + held - rateSince);
        return Math.floor(honest * 1_000_000) / 1_000_000.0;
    }

    private static double honestRate(double stored, double age) {
        return stored / (1 - Math.exp(-Math.max(age, RATE_WARMUP_MS) / RATE_TAU_MS));
    }
}
