package io.queuegate.admission;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.queuegate.room.JoinTerms;
import io.queuegate.room.Joiner;
import io.queuegate.room.Placement;
import io.queuegate.store.PlaceStore;
import io.queuegate.store.ProductRules;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Confirms in Redis, without any request waiting, that holders passing on the {@link ActiveCache}
 * still hold their sessions, so that their passes are renewed before they run out. The passes due
 * are gathered per product and sent every {@link #GATHER} in one join call (the request's own
 * script, under terms that never make a place): a session that ended is found ended and the pass
 * ends, and the holder's next request asks Redis itself, joining again only by paying what a new
 * place costs. One call for every holder due, not one each: a call costs the gateway far more than
 * a user in it. A call that fails leaves its passes to run out.
 */
public class PassConfirmations implements SmartLifecycle {

    /**
     * How long a confirmation may wait to share a call: well inside the quarter of a pass left when
     * it is asked for, with a round trip to spare.
     */
    static final Duration GATHER = Duration.ofMillis(50);

    private static final Log log = LogFactory.getLog(PassConfirmations.class);

    private final PlaceStore places;
    private final ActiveCache passes;
    private final Map<Batch, Set<String>> pending = new ConcurrentHashMap<>();
    private volatile Disposable sending;

    /** The holders of one product under one route's rules: one call. */
    private record Batch(String productId, ProductRules rules) {
    }

    public PassConfirmations(PlaceStore places, ActiveCache passes) {
        this.places = places;
        this.passes = passes;
    }

    /** Confirms the user's pass with the next call for the product. */
    void ask(String productId, ProductRules rules, String userId) {
        // Inside the map's lock on the batch, as the send's removal is: no user lands in a set
        // already taken.
        pending.compute(new Batch(productId, rules), (batch, users) -> {
            Set<String> all = users != null ? users : new HashSet<>();
            all.add(userId);
            return all;
        });
    }

    /** Sends what was gathered, one call a product (as many as its holders need). */
    Mono<Void> send() {
        return Flux.fromIterable(new ArrayList<>(pending.keySet()))
                .concatMap(this::send, 1)
                .then();
    }

    private Mono<Void> send(Batch batch) {
        Set<String> users = pending.remove(batch);
        if (users == null || users.isEmpty()) {
            return Mono.empty();
        }
        List<String> order = List.copyOf(users);
        List<Joiner> joiners = order.stream()
                .map(user -> new Joiner(user, null).under(JoinTerms.NO_NEW_PLACE))
                .toList();
        return places.joinAll(batch.productId(), batch.rules(), joiners)
                .index()
                .doOnNext(answer -> passes.confirmed(batch.productId(), order.get(answer.getT1().intValue()),
                        answer.getT2().placement().state() == Placement.State.ACTIVE))
                .then()
                .onErrorResume(error -> {
                    log.debug("Could not confirm " + order.size() + " passes of product " + batch.productId()
                            + "; they run out as they are: " + error);
                    return Mono.empty();
                });
    }

    @Override
    public void start() {
        if (!passes.isEnabled()) {
            return;
        }
        sending = Flux.interval(GATHER)
                .onBackpressureDrop()
                .concatMap(tick -> send(), 1)
                .subscribe();
    }

    @Override
    public void stop() {
        Disposable current = sending;
        if (current != null) {
            current.dispose();
        }
        sending = null;
    }

    @Override
    public boolean isRunning() {
        return sending != null;
    }
}
