package io.queuegate.store;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import io.queuegate.events.QueueEvents;
import io.queuegate.events.StockSource;
import io.queuegate.events.Trigger;
import io.queuegate.room.AdminAction;
import io.queuegate.room.ExpiryOutcome;
import io.queuegate.room.Joined;
import io.queuegate.room.Joiner;
import io.queuegate.room.PlaceStatus;
import io.queuegate.room.Placement;
import io.queuegate.room.Reclaim;
import io.queuegate.store.script.DueScript;
import io.queuegate.store.script.LeaveScript;
import io.queuegate.store.script.PromoteScript;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import reactor.core.publisher.Mono;

/**
 * Each product's queue in Redis: every read-decide-write is one script, so any number of gateway
 * instances share a product's queue without locks. Reports what its scripts did to the
 * {@link QueueEvents} (admissions, leaves, expiries, the sessions Redis vouched for), and notes
 * products for the due index, the registry and the timed set, whose writes go to keys of other
 * slots in batches. A script that declines because Redis lost or replaced the product's state
 * ({@link StaleProductException}) is asked again once the product is recovered
 * ({@link ProductRecovery}).
 */
public final class ProductQueues implements PlaceStore {

    private final ReactiveStringRedisTemplate redis;
    private final RedisGuard guard;
    private final QueueScripts scripts;
    private final Clock clock;
    private final QueueEvents events;
    private final DueIndex due;
    private final ProductRegistry registry;
    private final TimedProducts timed;
    private final Set<String> configured;
    private final RecoveringCalls recovering;
    private final ProductJoins joins;
    private final ProductReleases releases;

    /**
     * @param idleTtl how long a product's queue outlives its last join, beyond a session (the
     *                token lifetime: nobody can still hold a valid claim on it after that)
     */
    public ProductQueues(ReactiveStringRedisTemplate redis, RedisGuard guard, QueueScripts scripts, Clock clock,
            QueueEvents events, DueIndex due, ProductRegistry registry, TimedProducts timed,
            SlotEventStream slotEvents, Duration idleTtl, ProductRecovery recovery, DrawSeeds drawSeeds,
            Set<String> configured) {
        this.redis = redis;
        this.guard = guard;
        this.scripts = scripts;
        this.clock = clock;
        this.events = events;
        this.due = due;
        this.registry = registry;
        this.timed = timed;
        this.configured = Set.copyOf(configured);
        this.recovering = new RecoveringCalls(recovery, due);
        this.joins = new ProductJoins(scripts, clock, events, due, registry, timed, idleTtl, recovery, drawSeeds,
                recovering, this::isConfigured);
        this.releases = new ProductReleases(scripts, clock, events, due, slotEvents, idleTtl, recovering);
    }

    /** Whether the product is configured ({@code queuegate.products}): its state outlives its sessions. */
    @Override
    public boolean isConfigured(String productId) {
        // Configured ids are kept in lower case; a route that keeps case may spell them otherwise.
        return configured.contains(productId) || configured.contains(productId.toLowerCase(java.util.Locale.ROOT));
    }

    /**
     * Joins (or finds) the user under the product's rules and fills free places in the same step.
     * The rules are stored with the product, so promotions without a request follow them too.
     * Joins of one product (under the same rules) that meet on this instance go to Redis together
     * (group commit, see {@link GroupCommit}); each is still decided exactly as if alone.
     *
     * @param joiner the user, with what the request brings: a completion claim when it would
     *               complete the session (a new random id, which an active user must take:
     *               {@link Placement.State#COMPLETING} when another request holds it; it ends with
     *               the session or with {@link #releaseCompletion}), an invitation, and a
     *               proof-of-work mark taken once in the same step ({@link Placement.State#CHALLENGE_USED}
     *               when it was taken before, and nothing else is done)
     */
    @Override
    public Mono<Joined> join(String productId, ProductRules rules, Joiner joiner) {
        return joins.join(productId, rules, joiner);
    }

    /**
     * Confirms an admitted user's session in one read ({@code pass.lua}), together with the other
     * checks of the product that meet on this instance (group commit); anything else, a product to
     * recover included, is left to {@link #join}.
     */
    @Override
    public Mono<Long> confirmPass(String productId, ProductRules rules, String userId) {
        return joins.confirmPass(productId, rules, userId);
    }

    /** Where the user stands, without joining. */
    public Mono<PlaceStatus> status(String productId, String userId) {
        return status(productId, userId, null);
    }

    /**
     * Where the user stands, without joining; after a loss, what their token proves comes back
     * first ({@code reclaim}, or {@code null}).
     */
    @Override
    public Mono<PlaceStatus> status(String productId, String userId, Reclaim reclaim) {
        return recovering.call(productId, null, Mono.defer(() -> scripts.status().run(productId, userId, clock.millis(),
                reclaim))).doOnNext(status -> {
            // An instance started after the product's joins (a rolling restart) learns it here.
            if (status.timed()) {
                timed.add(productId);
            }
        });
    }

    /**
     * Ends the user's place (waiting or active) and refills it at once.
     *
     * @return whether the user held a place
     */
    @Override
    public Mono<Boolean> leave(String productId, String userId) {
        return releases.leave(productId, userId, LeaveScript.Ending.LEAVE);
    }

    /**
     * Ends an admitted user's session on a sale the shop confirmed: {@code unitsLeft} is what its
     * answer said is left ({@code Queue-Stock}), or {@code null} when it said nothing (a stock an
     * operator or the setting gave then goes down by units-per-shopper).
     */
    @Override
    public Mono<Boolean> complete(String productId, String userId, Long unitsLeft, long forwardedAt) {
        return releases.release(productId, userId, Trigger.COMPLETION, false, LeaveScript.Ending.sale(unitsLeft, forwardedAt));
    }

    /**
     * Ends the user's place on the shop's word without a sale ({@code Queue-Release}, a redirect
     * that sold nothing), and notes what its answer said is left.
     */
    @Override
    public Mono<Boolean> endWithoutSale(String productId, String userId, Long unitsLeft, long forwardedAt) {
        return releases.leave(productId, userId, LeaveScript.Ending.withoutSale(unitsLeft, forwardedAt));
    }

    /**
     * The shop's answer to a request that ended nothing said what is left ({@code Queue-Stock}):
     * believed unless the request was forwarded before the stock's last change.
     *
     * @return the units left after it, -1 when Redis holds nothing of the product
     */
    @Override
    public Mono<Long> stockSaid(String productId, long unitsLeft, long forwardedAt) {
        return recovering.call(productId, null, Mono.defer(() -> scripts.stock().run(productId, unitsLeft, clock.millis(),
                forwardedAt))).map(result -> {
                    if (result.changed()) {
                        events.stockChanged(productId, result.stock(), StockSource.SHOP, result.soldOut());
                    }
                    events.promoted(productId, Trigger.RESTOCK, result.promoted());
                    events.abandoned(productId, Trigger.RESTOCK, result.abandoned());
                    if (result.promoted() > 0) {
                        due.mark(productId);
                    }
                    return result.stock();
                });
    }

    /**
     * The shop answered 404 to the request that made the first place of a product that is not
     * configured: it sells no such product. The session ends, and the product, left with nobody in
     * it, loses every key: an invented id costs nothing once the shop has said so.
     *
     * @return whether the user held a place
     */
    @Override
    public Mono<Boolean> unknown(String productId, String userId) {
        return releases.release(productId, userId, Trigger.UNKNOWN_PRODUCT, true, LeaveScript.Ending.LEAVE);
    }

    /**
     * Gives back a completion claim whose request the shop answered with a failure, so the session
     * may complete with another request; only if that request still holds it.
     *
     * @return whether it held the claim
     */
    @Override
    public Mono<Boolean> releaseCompletion(String productId, String userId, String claim) {
        return scripts.giveBack().run(productId, userId, claim);
    }

    /**
     * Handles Redis's expiry of a user's slot key ({@code promotion: keyspace}); safe to run on
     * every instance for the same event, only the first counts it.
     */
    public Mono<ExpiryOutcome> expire(String productId, String userId) {
        return scripts.expire().run(productId, userId, clock.millis()).map(expired -> {
            if (expired.outcome() == ExpiryOutcome.EXPIRED) {
                events.expired(productId, userId);
                events.promoted(productId, Trigger.EXPIRY, expired.promoted());
                events.abandoned(productId, Trigger.EXPIRY, expired.abandoned());
            }
            if (expired.promoted() > 0) {
                due.mark(productId);
            }
            return expired.outcome();
        });
    }

    /**
     * One promotion pass for one product.
     *
     * @param onlyStrategy promote only when the product uses this strategy; empty for any
     */
    public Mono<PromoteScript.Result> promote(String productId, String onlyStrategy) {
        return scripts.promote().run(productId, clock.millis(), onlyStrategy).doOnNext(promoted -> {
            events.promoted(productId, Trigger.PROMOTE, promoted.moved());
            events.abandoned(productId, Trigger.PROMOTE, promoted.abandoned());
            if (promoted.moved() > 0) {
                due.mark(productId);
            }
        });
    }

    /** One safety-net promotion of a due product, telling when it is next due. */
    public Mono<DueScript.Result> promoteDue(String productId, String onlyStrategy) {
        return scripts.due().run(productId, clock.millis(), onlyStrategy).doOnNext(result -> {
            events.promoted(productId, Trigger.PROMOTE, result.moved());
            events.abandoned(productId, Trigger.PROMOTE, result.abandoned());
            if (result.timed()) {
                timed.add(productId);
            }
        });
    }

    /**
     * Applies an operator's change to one product in Redis, for every instance at once.
     *
     * @param value the new max-active for {@link AdminAction#MAX} ("" = back to the route's), the
     *              room mode's code for {@link AdminAction#MODE}, else ""
     * @return users promoted by the change
     */
    public Mono<Long> control(String productId, AdminAction action, String value) {
        return recovering.call(productId, null, Mono.defer(() -> scripts.admin().run(productId, action, value,
                clock.millis()))).map(changed -> {
            if (action == AdminAction.STOCK) {
                events.stockChanged(productId, changed.stock(), StockSource.OPERATOR, changed.soldOut());
            }
            events.promoted(productId, Trigger.ADMIN, changed.promoted());
            events.abandoned(productId, Trigger.ADMIN, changed.abandoned());
            // A resume, a new mode or a larger max-active changes what is due.
            due.mark(productId);
            // Operators' lists find it by its activity, though nobody may be in it.
            registry.changed(productId);
            return changed.promoted();
        });
    }

    /** The product's queue as operators see it, in one read-only script call. */
    public Mono<QueueSnapshot> snapshot(String productId) {
        return scripts.snapshot().run(productId, clock.millis());
    }

    /**
     * The first {@code limit} users in the product's line, in order (before a sale opens, in
     * ticket order: its draw applies from the opening on). Read-only; for audits, tools and tests.
     */
    public Mono<List<String>> line(String productId, int limit) {
        return scripts.peek().run(productId, limit);
    }

    /** A health probe through the same guard as every call: PONG when Redis answers. */
    public Mono<String> ping() {
        return guard.guard(redis.execute(connection -> connection.ping()).next());
    }

    /** The clock every script is given its {@code now} from (epoch ms). */
    @Override
    public long millis() {
        return clock.millis();
    }
}
