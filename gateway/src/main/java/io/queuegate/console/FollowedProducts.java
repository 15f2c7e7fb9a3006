package io.queuegate.console;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

import io.queuegate.admission.Identifiers;
import io.queuegate.admission.QueueRejection;
import io.queuegate.config.QueueGateProperties;
import io.queuegate.ops.QueueDirectory;
import io.queuegate.room.RoomMode;
import io.queuegate.store.ProductQueues;
import io.queuegate.store.QueueSnapshot;

import reactor.core.publisher.Mono;

/**
 * The products the console follows between polls, each with its last numbers and its admission
 * rate over the history window: the busy ones, those an operator changed, and the configured ones,
 * at most {@code queuegate.console.max-products}. One idle for a whole window, or that Redis no
 * longer knows, is let go.
 */
final class FollowedProducts {

    private final ProductQueues store;
    private final QueueDirectory directory;
    private final QueueGateProperties.Console properties;
    private final Clock clock;
    private final long baseSecond;
    private final Map<String, Followed> followed = new ConcurrentHashMap<>();

    FollowedProducts(ProductQueues store, QueueDirectory directory, QueueGateProperties.Console properties,
            Clock clock) {
        this.store = store;
        this.directory = directory;
        this.properties = properties;
        this.clock = clock;
        this.baseSecond = clock.millis() / 1000;
    }

    List<String> ids() {
        return List.copyOf(followed.keySet());
    }

    /** Each followed product that has been read at least once, with its last numbers. */
    void forEachRead(BiConsumer<String, QueueSnapshot> action) {
        followed.forEach((productId, state) -> {
            QueueSnapshot latest = state.latest;
            if (latest != null) {
                action.accept(productId, latest);
            }
        });
    }

    /** {@code [epochSecond, admissions per second]} since {@code from} (epoch ms), oldest first. */
    double[][] history(String productId, long from) {
        Followed state = followed.get(productId);
        return state == null ? new double[0][] : state.rates.since(from);
    }

    /** Follows an exact product id that the list does not hold yet, when Redis or the configuration knows it. */
    Mono<Void> lookUp(String productId) {
        if (productId.isEmpty() || followed.containsKey(productId) || !isProductId(productId)) {
            return Mono.empty();
        }
        long now = clock.millis();
        return store.snapshot(productId)
                .doOnNext(snapshot -> {
                    Followed state = snapshot.known() || directory.isConfigured(productId) ? follow(productId, now)
                            : null;
                    if (state != null) {
                        state.latest = snapshot;
                    }
                })
                .then()
                .onErrorResume(error -> Mono.empty());
    }

    /**
     * Keeps what a read of the product found.
     *
     * @param sampled whether the read was the periodic sample, which adds a point to the chart
     */
    void record(String productId, QueueSnapshot snapshot, long now, boolean sampled) {
        Followed state = followed.get(productId);
        boolean busy = snapshot.waiting() > 0 || snapshot.active() > 0;
        boolean configured = directory.isConfigured(productId);
        if (state == null) {
            if (!busy && !configured && !steered(snapshot)) {
                return;
            }
            state = follow(productId, now);
            if (state == null) {
                return;
            }
        }
        if (!snapshot.known() && !configured) {
            // Redis holds nothing of it any more: nothing to show, nothing to steer.
            followed.remove(productId, state);
            return;
        }
        state.latest = snapshot;
        if (busy || steered(snapshot)) {
            state.lastBusy = now;
        }
        if (sampled) {
            state.rates.add(now, snapshot.admissionRate());
            // Idle for a whole window: nothing left to chart. Configured products always stay.
            if (!configured && now - state.lastBusy > properties.history().toMillis()) {
                followed.remove(productId, state);
            }
        }
    }

    /** Null when the console already follows as many products as it may. */
    private Followed follow(String productId, long now) {
        Followed existing = followed.get(productId);
        if (existing != null) {
            return existing;
        }
        if (followed.size() >= properties.maxProducts()) {
            return null;
        }
        return followed.computeIfAbsent(productId,
                id -> new Followed(new RateHistory(properties.points(), baseSecond), now));
    }

    /**
     * An operator changed it: it stays listed while nobody is in it, so it can be changed back. (A
     * stock is not told apart: an operator's and the route's setting are written alike.)
     */
    private static boolean steered(QueueSnapshot snapshot) {
        return snapshot.mode() != RoomMode.QUEUE || snapshot.draining() || snapshot.maxOverride() != null;
    }

    private static boolean isProductId(String productId) {
        try {
            Identifiers.requireProductId(productId);
            return true;
        }
        catch (QueueRejection rejection) {
            return false;
        }
    }

    /** What the console knows of one product between polls. */
    private static final class Followed {

        final RateHistory rates;
        volatile QueueSnapshot latest;
        volatile long lastBusy;

        Followed(RateHistory rates, long now) {
            this.rates = rates;
            this.lastBusy = now;
        }
    }
}
