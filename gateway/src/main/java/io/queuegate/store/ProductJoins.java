package io.queuegate.store;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

import io.queuegate.events.QueueEvents;
import io.queuegate.events.Trigger;
import io.queuegate.room.Joined;
import io.queuegate.room.Joiner;
import io.queuegate.room.Placement;
import io.queuegate.store.script.JoinScript;

import reactor.core.publisher.Mono;

/**
 * The joins and pass checks of {@link ProductQueues}: those of one product that meet on this
 * instance go to Redis together ({@link GroupCommit}), and what a join did is told to the
 * {@link QueueEvents} and noted for the registry, the due index and the timed set.
 */
final class ProductJoins {

    private final QueueScripts scripts;
    private final Clock clock;
    private final QueueEvents events;
    private final DueIndex due;
    private final ProductRegistry registry;
    private final TimedProducts timed;
    private final Duration idleTtl;
    private final ProductRecovery recovery;
    private final DrawSeeds drawSeeds;
    private final RecoveringCalls recovering;
    private final Predicate<String> configured;
    private final GroupCommit<JoinLane, Joiner, Joined> joins = new GroupCommit<>(
            (lane, joiners) -> joinAll(lane.productId(), lane.rules(), joiners).map(JoinScript.Result::joined), "joins",
            JoinLane::productId);
    private final GroupCommit<String, String, Long> passes = new GroupCommit<>(this::confirmAll, "pass checks",
            productId -> productId);

    /** @param configured whether a product is configured ({@link ProductQueues#isConfigured}) */
    ProductJoins(QueueScripts scripts, Clock clock, QueueEvents events, DueIndex due, ProductRegistry registry,
            TimedProducts timed, Duration idleTtl, ProductRecovery recovery, DrawSeeds drawSeeds,
            RecoveringCalls recovering, Predicate<String> configured) {
        this.scripts = scripts;
        this.clock = clock;
        this.events = events;
        this.due = due;
        this.registry = registry;
        this.timed = timed;
        this.idleTtl = idleTtl;
        this.recovery = recovery;
        this.drawSeeds = drawSeeds;
        this.recovering = recovering;
        this.configured = configured;
    }

    /** See {@link ProductQueues#join}. */
    Mono<Joined> join(String productId, ProductRules rules, Joiner joiner) {
        return joins.submit(new JoinLane(productId, rules), joiner);
    }

    /** The joins that may share a call: one product's, under the same rules. */
    private record JoinLane(String productId, ProductRules rules) {
    }

    private Mono<JoinScript.Result> joinAll(String productId, ProductRules rules, List<Joiner> joiners) {
        long now = clock.millis();
        recovery.rulesUsed(productId, rules);
        JoinScript.Args args = new JoinScript.Args(productId, now, rules, idleTtl.plus(rules.sessionTtl()),
                drawSeed(productId, rules, now), joiners, configured.test(productId));
        return recovering.call(productId, rules, scripts.join().run(args)).doOnNext(result -> {
            events.promoted(productId, Trigger.JOIN, result.promoted());
            events.abandoned(productId, Trigger.JOIN, result.abandoned());
            boolean newWaiter = false;
            long admittedOnArrival = 0;
            for (int i = 0; i < result.joined().size(); i++) {
                Joined joined = result.joined().get(i);
                if (joined.sessionEnd() != null) {
                    events.session(productId, joiners.get(i).userId(), joined.sessionEnd());
                }
                boolean active = joined.placement().state() == Placement.State.ACTIVE;
                newWaiter |= joined.enqueued() && !active;
                admittedOnArrival += joined.enqueued() && active ? 1 : 0;
            }
            // Only a new waiter needs the scheduler to know the product.
            if (newWaiter) {
                registry.add(productId);
                due.mark(productId);
            }
            else if (result.promoted() > 0) {
                // Operators see products with admitted shoppers too.
                registry.admitted(productId);
            }
            // Any other promotion starts a session whose end the safety net must see; newcomers let
            // in the moment they arrived had nobody waiting ahead of them.
            if (result.promoted() > admittedOnArrival) {
                due.mark(productId);
            }
            if (rules.isTimed()) {
                timed.add(productId);
            }
        });
    }

    /**
     * The seed of the product's sale's draw, with its commitment, in case this join opens it; none
     * once the sale's opens-at has passed, when no call can open a draw (the script decides with
     * the same {@code now}), so the sale itself pays for no hash.
     */
    private DrawSeed drawSeed(String productId, ProductRules rules, long now) {
        return rules.opensAt() == null || now >= rules.opensAt().toEpochMilli() ? null
                : drawSeeds.forSale(productId, rules.opensAt());
    }

    /** See {@link ProductQueues#confirmPass}. */
    Mono<Long> confirmPass(String productId, ProductRules rules, String userId) {
        if (!rules.equals(recovery.lastRules(productId))) {
            // Not sent by this instance yet (it started, or the route changed): the long way
            // stores them, so promotions without a request follow them.
            return Mono.empty();
        }
        return passes.submit(productId, userId).doOnNext(end -> events.session(productId, userId, end));
    }

    /** The checks of one product that met on this instance, in one call (group commit). */
    private Mono<List<Long>> confirmAll(String productId, List<String> userIds) {
        return scripts.pass().run(productId, clock.millis(), userIds);
    }
}
