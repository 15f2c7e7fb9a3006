package io.queuegate.line;

import java.time.Clock;

import io.queuegate.room.Placement;
import io.queuegate.room.Stock;

import reactor.core.publisher.Mono;

/**
 * Answers a shopper in line from this instance's memory: their rank from the ticket their signed
 * token carries and the instance's view of the product's line (at most {@link LineViews#MAX_AGE}
 * stale), and the fact that they asked noted for abandon-after in the next batch. A waiting crowd
 * then costs Redis a view read per product and instance twice a second and a batched mark, not a
 * script call per poll. {@code null} means Redis must answer: no fresh view, or something only
 * Redis can tell (the shopper's turn may have come: the head reached their ticket, their admission
 * was announced, or admissions heard of since the view was read could have reached them).
 */
public class LocalAnswers {

    /** How long a newcomer's answer waits for a view of the product's stock: about a round trip to Redis. */
    static final java.time.Duration STOCK_WAIT = java.time.Duration.ofMillis(250);

    private final LineViews views;
    private final SeenMarks seen;
    private final Clock clock;

    public LocalAnswers(LineViews views, SeenMarks seen, Clock clock) {
        this.views = views;
        this.seen = seen;
        this.clock = clock;
    }

    /**
     * The answer to a poll on a protected route by the holder of {@code ticket}, as {@code join.lua}
     * would give it (waiting, pre-queued, or turned away by a closed room), or {@code null}. The
     * poll counts as being seen.
     */
    public LocalStanding poll(String productId, String userId, long ticket) {
        return poll(productId, userId, ticket, null);
    }

    /**
     * {@link #poll(String, String, long)} for a token signed in {@code epoch}: only a view read in
     * the same epoch of the Redis data answers it (a token of another one may prove a place Redis
     * lost, which only Redis can bring back). A token that names no epoch (signed by the release
     * before) is answered as before.
     */
    public LocalStanding poll(String productId, String userId, long ticket, String epoch) {
        return standing(productId, userId, ticket, true, true, epoch);
    }

    /**
     * Where the holder of {@code ticket} stands, as {@code status.lua} would tell it (waiting or
     * pre-queued), or {@code null}.
     *
     * @param seen whether this counts as being seen: every status request does; a live stream's
     *             periodic look does only as often as a polling client would ask
     */
    public LocalStanding status(String productId, String userId, long ticket, boolean seen) {
        return status(productId, userId, ticket, seen, null);
    }

    /** {@link #status(String, String, long, boolean)} for a token signed in {@code epoch} (as {@link #poll}). */
    public LocalStanding status(String productId, String userId, long ticket, boolean seen, String epoch) {
        return standing(productId, userId, ticket, false, seen, epoch);
    }

    /**
     * Whether this instance's view of the product's line is fresh enough to answer from: when it
     * is and still could not answer, the shopper's turn may have come, which only Redis can tell.
     */
    public boolean hasFreshView(String productId) {
        return views.fresh(productId) != null;
    }

    /**
     * This instance's join made places in the product's invited line: the main line's ranks it
     * answers from memory count them at once.
     */
    public void invitedJoined(String productId, long count) {
        views.invitedJoined(productId, count);
    }

    /**
     * What the product has left to sell as this instance's view read it, or {@code null} when the
     * view does not know (no fresh view, or a stock nobody has said yet).
     */
    public Stock stock(String productId) {
        LineView view = views.fresh(productId);
        return view == null ? null : view.stock();
    }

    /**
     * What the product has left as this instance's view reads it, waiting a moment for a read when
     * the view is not fresh: so a newcomer hears "sold out" before paying for a place. Empty when
     * the view does not know (no stock said yet, or no read within the moment).
     */
    public Mono<Stock> soonStock(String productId) {
        return views.freshSoon(productId, STOCK_WAIT).mapNotNull(LineView::stock);
    }

    /**
     * Someone asked about the product without asking its line (an admitted shopper's pass
     * checked): its outage detection hears it with the next batch of seen marks.
     */
    public void heard(String productId) {
        seen.heard(productId);
    }

    /** The user gave up their place in the product through this instance: only Redis answers them for a while. */
    public void left(String productId, String userId) {
        views.left(productId, userId);
    }

    /** Notes that the holder of {@code ticket} is still there, for the next batch of seen marks. */
    public void seen(String productId, long ticket) {
        seen.mark(productId, ticket);
    }

    private LocalStanding standing(String productId, String userId, long ticket, boolean asJoin, boolean markSeen,
            String epoch) {
        LineView view = views.fresh(productId);
        if (view == null || views.answeredByRedis(productId, userId) || epoch != null && !epoch.equals(view.epoch())) {
            return null;
        }
        Placement placement = view.placementOf(ticket, clock.millis(), asJoin, views.invitedJoinedSince(productId, view));
        if (placement == null) {
            return null;
        }
        if (placement.state() == Placement.State.WAITING && placement.rank() <= views.admittedSince(productId, view)) {
            // Admissions heard of since the view was read may have reached this shopper.
            return null;
        }
        if (view.abandonAfterMillis() > 0) {
            seen.heard(productId);
            if (markSeen) {
                seen.mark(productId, ticket);
            }
        }
        return new LocalStanding(placement, view.opensAt(), view.abandonAfter(), view.seedCommitment(), view.stock());
    }
}
