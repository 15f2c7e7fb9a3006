package io.queuegate.admission;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.queuegate.room.JoinTerms;
import io.queuegate.room.Joined;
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
 * are gathered per product and sent every {@link #GATHER} in one join call as far as one holds
 * them (the request's own script, under terms that never make a place): a session that ended is
 * found ended and the pass ends, and the holder's next request asks Redis itself, joining again
 * only by paying what a new place costs. A call a product rather than a call a holder: a call costs
 * the gateway far more than a user in it. A call that fails leaves its passes to run out.
 */
public class PassConfirmations implements SmartLifecycle {

    /**
     * How long a confirmation may wait to share a call: well inside the quarter of a pass left when
     * it is asked for ({@link ActiveCache#CONFIRMATION_TIME}), with a round trip to spare.
     */
    static final Duration GATHER = Duration.ofMillis(50);

    /**
     * The most confirmations of one product sent at once; the rest wait for the next gathering. They
     * share the product's group commit with real joins, which must keep most of its room.
     */
    static final int AT_ONCE = 256;

    /** Products whose confirmations are out at once: one slow product must not hold up the others. */
    private static final int PRODUCTS_AT_ONCE = 8;

    private static final Log log = LogFactory.getLog(PassConfirmations.class);

    private final PlaceStore places;
    private final ActiveCache cache;
    private final Map<Batch, Set<String>> pending = new ConcurrentHashMap<>();
    private volatile Disposable sending;

    /** The holders of one product under one route's rules: one call. */
    private record Batch(String productId, ProductRules rules) {
    }

    public PassConfirmations(PlaceStore places, ActiveCache cache) {
        this.places = places;
        this.cache = cache;
    }

    /** Has the user's pass confirmed with the next call for the product. */
    void ask(String productId, ProductRules rules, String userId) {
        // Inside the map's lock on the batch, as taking is: no user lands in a set already taken.
        pending.compute(new Batch(productId, rules), (batch, users) -> {
            Set<String> all = users != null ? users : new LinkedHashSet<>();
            all.add(userId);
            return all;
        });
    }

    /** Sends what was gathered: for each product, up to {@link #AT_ONCE} in the order asked. */
    Mono<Void> send() {
        return Flux.fromIterable(new ArrayList<>(pending.keySet()))
                .flatMap(this::send, PRODUCTS_AT_ONCE)
                .then();
    }

    private Mono<Void> send(Batch batch) {
        List<String> users = take(batch);
        if (users.isEmpty()) {
            return Mono.empty();
        }
        long sentAt = places.millis();
        List<Joiner> joiners = users.stream()
                .map(user -> new Joiner(user, null).under(JoinTerms.NO_NEW_PLACE))
                .toList();
        return places.joinAll(batch.productId(), batch.rules(), joiners)
                .index()
                .doOnNext(answer -> answered(batch.productId(), users.get(answer.getT1().intValue()), sentAt,
                        answer.getT2()))
                .then()
                .onErrorResume(error -> {
                    log.debug("Could not confirm " + users.size() + " passes of product " + batch.productId()
                            + "; they run out as they are: " + error);
                    return Mono.empty();
                });
    }

    private List<String> take(Batch batch) {
        List<String> taken = new ArrayList<>();
        pending.computeIfPresent(batch, (key, users) -> {
            Iterator<String> each = users.iterator();
            while (each.hasNext() && taken.size() < AT_ONCE) {
                taken.add(each.next());
                each.remove();
            }
            return users.isEmpty() ? null : users;
        });
        return taken;
    }

    private void answered(String productId, String userId, long sentAt, Joined joined) {
        if (joined.placement().state() == Placement.State.ACTIVE) {
            cache.confirmed(productId, userId, sentAt, joined.sessionEnd() != null ? joined.sessionEnd() : Long.MAX_VALUE);
        }
        else {
            cache.ended(productId, userId);
        }
    }

    @Override
    public void start() {
        if (!cache.isEnabled()) {
            return;
        }
        sending = Flux.interval(GATHER)
                .onBackpressureDrop()
                .concatMap(tick -> send(), 1)
                .subscribe(null, error -> log.warn("Passes of the active cache are no longer confirmed ahead of "
                        + "their end (each holder's request asks Redis once their pass runs out): " + error));
    }

    @Override
    public void stop() {
        Disposable current = sending;
        if (current != null) {
            current.dispose();
        }
        sending = null;
        // What is still gathered runs out as it is.
        pending.clear();
    }

    @Override
    public boolean isRunning() {
        return sending != null;
    }
}
