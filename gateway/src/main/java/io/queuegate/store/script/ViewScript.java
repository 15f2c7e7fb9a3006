package io.queuegate.store.script;

import java.util.List;

import io.queuegate.room.RoomMode;
import io.queuegate.store.ScriptReply;
import io.queuegate.store.ScriptRunner;
import io.queuegate.room.Stock;

import reactor.core.publisher.Mono;

/** {@code view.lua}: the moving parts of a product's line, for an instance's own view of it. */
public final class ViewScript extends ProductScript {

    public ViewScript(ScriptRunner runner) {
        super(runner, "view.lua");
    }

    /**
     * @param known whether the product has any state in Redis
     * @param head the position served next
     * @param last the last ticket handed out
     * @param leftVersion the version of the places given up
     * @param leftCount how many places given up the head has not reached yet
     * @param left their positions, ascending, when {@code leftChanged}; else empty (the caller's
     *             are current)
     * @param leftComplete false when there are too many places given up to send: the caller can
     *                     then work out no rank on its own
     * @param drawFrom the first ticket of a sale's draw, or -1
     * @param drawTo the last ticket of a closed draw, or -1 while none is closed
     * @param seed the closed draw's seed, or {@code ""}
     * @param seedCommitment the commitment to the last draw's seed, or {@code null} when it has none
     * @param opens the sale's opens-at (epoch ms), or -1
     * @param opened the opens-at the sale last opened at (epoch ms), or -1
     * @param rate the admission rate's stored value (admissions per second), or -1 when none
     * @param rateAt when it was stored (epoch ms)
     * @param rateSince when its history began (epoch ms)
     * @param abandonAfter the product's abandon-after (ms), 0 for never
     * @param invited the invited line's moving parts ({@code invites: priority}): {@link Line#EMPTY}
     *                when the product has none
     * @param returning how many places reclaimed after a loss wait ahead of both lines
     * @param maxOverride the operator's max-active, or -1 when unset
     * @param epoch the epoch of the Redis data it was read in, or {@code null} when unknown
     * @param drawOpens the opens-at the last draw was opened for (its seed is derived from it), or -1
     * @param stock what the product has left to sell ({@code admitted} counts sessions not yet
     *              dropped, expired ones included), {@code null} while unknown
     * @param rateGap the longest recent gap between admissions (ms), for the estimate; 0 when none
     */
    public record Result(boolean known, long head, long last, long leftVersion, long leftCount, boolean leftChanged,
            long[] left, boolean leftComplete, long drawFrom, long drawTo, String seed, String seedCommitment, long opens,
            long opened, RoomMode mode, boolean draining, double rate, long rateAt, long rateSince, long abandonAfter,
            Line invited, long returning, long maxOverride, String epoch, long drawOpens, Stock stock, long rateGap) {

        /** A reply that knows no gap between admissions. */
        public Result(boolean known, long head, long last, long leftVersion, long leftCount, boolean leftChanged,
                long[] left, boolean leftComplete, long drawFrom, long drawTo, String seed, String seedCommitment,
                long opens, long opened, RoomMode mode, boolean draining, double rate, long rateAt, long rateSince,
                long abandonAfter, Line invited, long returning, long maxOverride, String epoch, long drawOpens,
                Stock stock) {
            this(known, head, last, leftVersion, leftCount, leftChanged, left, leftComplete, drawFrom, drawTo, seed,
                    seedCommitment, opens, opened, mode, draining, rate, rateAt, rateSince, abandonAfter, invited,
                    returning, maxOverride, epoch, drawOpens, stock, 0);
        }

        /** A reply of a product whose stock is unknown. */
        public Result(boolean known, long head, long last, long leftVersion, long leftCount, boolean leftChanged,
                long[] left, boolean leftComplete, long drawFrom, long drawTo, String seed, String seedCommitment,
                long opens, long opened, RoomMode mode, boolean draining, double rate, long rateAt, long rateSince,
                long abandonAfter, Line invited, long returning, long maxOverride, String epoch, long drawOpens) {
            this(known, head, last, leftVersion, leftCount, leftChanged, left, leftComplete, drawFrom, drawTo, seed,
                    seedCommitment, opens, opened, mode, draining, rate, rateAt, rateSince, abandonAfter, invited,
                    returning, maxOverride, epoch, drawOpens, null);
        }

        /** A reply without an invited line, nobody returning after a loss and no operator's max-active. */
        public Result(boolean known, long head, long last, long leftVersion, long leftCount, boolean leftChanged,
                long[] left, boolean leftComplete, long drawFrom, long drawTo, String seed, String seedCommitment,
                long opens, long opened, RoomMode mode, boolean draining, double rate, long rateAt, long rateSince,
                long abandonAfter) {
            this(known, head, last, leftVersion, leftCount, leftChanged, left, leftComplete, drawFrom, drawTo, seed,
                    seedCommitment, opens, opened, mode, draining, rate, rateAt, rateSince, abandonAfter, Line.EMPTY, 0,
                    -1, null, -1);
        }
    }

    /**
     * One line's moving parts, as for the main line in {@link Result}.
     *
     * @param left the positions of the places given up ahead of the head, ascending, when
     *             {@code leftChanged}; else empty (the caller's are current)
     */
    public record Line(long head, long last, long leftVersion, long leftCount, boolean leftChanged, long[] left,
            boolean leftComplete, long drawFrom, long drawTo) {

        /** A line nobody ever stood in. */
        public static final Line EMPTY = new Line(1, 0, 0, 0, false, new long[0], true, -1, -1);
    }

    /**
     * @param leftVersion the version of the places given up the caller holds, or {@code null}
     * @param leftCount how many it holds, or -1
     */
    public Mono<Result> run(String productId, Long leftVersion, long leftCount) {
        return run(productId, leftVersion, leftCount, null, -1);
    }

    /**
     * @param invitedLeftVersion and {@code invitedLeftCount}: the same for the invited line
     */
    public Mono<Result> run(String productId, Long leftVersion, long leftCount, Long invitedLeftVersion,
            long invitedLeftCount) {
        return fields(productId, leftVersion == null ? "" : Long.toString(leftVersion), Long.toString(leftCount),
                invitedLeftVersion == null ? "" : Long.toString(invitedLeftVersion), Long.toString(invitedLeftCount))
                .map(ViewScript::result);
    }

    static Result result(ScriptReply reply) {
        Line invited = !reply.flag("invited") ? Line.EMPTY
                : new Line(reply.number("invited_head"), reply.number("invited_last"),
                        reply.number("invited_left_version"), reply.number("invited_left_count"),
                        reply.flag("invited_left_changed"), positions(reply.list("invited_left")),
                        reply.flag("invited_left_complete"), reply.number("invited_draw_from"),
                        reply.number("invited_draw_to"));
        return new Result(reply.flag("known"), reply.number("head"), reply.number("last"), reply.number("left_version"),
                reply.number("left_count"), reply.flag("left_changed"), positions(reply.list("left")),
                reply.flag("left_complete"), reply.number("draw_from"),
                reply.number("draw_to"), reply.text("seed"), nonEmpty(reply.text("commitment")), reply.number("opens"),
                reply.number("opened"),
                reply.code("mode", RoomMode.class), reply.flag("draining"), reply.decimal("rate"),
                reply.number("rate_at"), reply.number("rate_since"), reply.number("abandon"), invited,
                reply.number("returning"), reply.number("max_override"), reply.text("epoch"),
                reply.number("draw_opens"), Stock.of(reply.number("stock"), reply.number("admitted"),
                        reply.number("units")), reply.number("rate_gap"));
    }

    private static long[] positions(List<?> positions) {
        long[] left = new long[positions.size()];
        for (int i = 0; i < left.length; i++) {
            left[i] = ((Number) positions.get(i)).longValue();
        }
        return left;
    }

    private static String nonEmpty(String text) {
        return text.isEmpty() ? null : text;
    }
}
