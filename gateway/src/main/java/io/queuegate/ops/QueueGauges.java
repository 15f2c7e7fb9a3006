package io.queuegate.ops;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.queuegate.store.ProductQueues;
import io.queuegate.store.QueueSnapshot;
import io.queuegate.room.RoomMode;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The {@code queuegate.waiting}, {@code queuegate.active}, {@code queuegate.mode},
 * {@code queuegate.draining} and {@code queuegate.stock} gauges per product, read from Redis every
 * {@code queuegate.metrics.refresh-interval} in the background, so a scrape only reads memory. A
 * product has gauges while it is configured or anyone waits or holds a place in it.
 * {@code queuegate.mode} has one series per room mode, 1 for the product's mode and 0 for the
 * others, so a switch never leaves a stale series behind; alerts use it and
 * {@code queuegate.draining} to skip products an operator stopped on purpose.
 */
public class QueueGauges implements SmartLifecycle {

    private static final Log log = LogFactory.getLog(QueueGauges.class);

    /** Products read at once in one refresh; bounds the Redis load of a large registry. */
    private static final int CONCURRENCY = 8;

    private final MeterRegistry registry;
    private final QueueDirectory directory;
    private final ProductQueues store;
    private final ProductTags tags;
    private final Map<String, Counts> tracked = new ConcurrentHashMap<>();
    private final Periodically periodically;

    public QueueGauges(MeterRegistry registry, QueueDirectory directory, ProductQueues store, ProductTags tags,
            Duration interval) {
        this.registry = registry;
        this.directory = directory;
        this.store = store;
        this.tags = tags;
        this.periodically = new Periodically(interval, this::refresh, log,
                "Queue gauges not refreshed; keeping the last values");
        tags.onEvicted(this::drop);
    }

    /** The product's tag went to another product: its gauges go. */
    private void drop(String productId) {
        Counts gone = tracked.remove(productId);
        if (gone != null) {
            gone.gauges.forEach(registry::remove);
        }
    }

    /** Reads every listed product once and updates, adds or drops its gauges. */
    public Mono<Void> refresh() {
        return directory.products()
                .collectList()
                .doOnNext(tags::rank)
                .flatMapMany(ranked -> Flux.fromIterable(ranked).concatWith(Flux.fromIterable(Set.copyOf(tracked.keySet()))))
                .distinct()
                .flatMap(productId -> store.snapshot(productId)
                        .doOnNext(snapshot -> update(productId, snapshot))
                        // One product's failed read keeps its last values; the others still refresh.
                        .onErrorResume(error -> {
                            log.debug("Queue gauges of product " + productId + " not refreshed: " + error);
                            return Mono.empty();
                        }), CONCURRENCY)
                .then();
    }

    private void update(String productId, QueueSnapshot snapshot) {
        boolean empty = snapshot.waiting() == 0 && snapshot.active() == 0;
        if (empty && !directory.isConfigured(productId)) {
            Counts gone = tracked.remove(productId);
            if (gone != null) {
                gone.gauges.forEach(registry::remove);
            }
            return;
        }
        Counts counts = tracked.get(productId);
        if (counts == null) {
            if (!tags.admit(productId)) {
                return;
            }
            counts = tracked.computeIfAbsent(productId, this::register);
        }
        counts.waiting.set(snapshot.waiting());
        counts.active.set(snapshot.active());
        counts.mode.set(snapshot.mode());
        counts.draining.set(snapshot.draining() ? 1 : 0);
        counts.stock.set(snapshot.stock() == null ? Double.NaN : snapshot.stock().left());
    }

    private Counts register(String productId) {
        Counts counts = new Counts(new AtomicLong(), new AtomicLong(), new AtomicReference<>(RoomMode.QUEUE),
                new AtomicLong(), new AtomicReference<>(Double.NaN), new ArrayList<>());
        counts.gauges.add(Gauge.builder("queuegate.waiting", counts.waiting, AtomicLong::get)
                .description("Users in line, as last read from Redis")
                .tag("product", productId)
                .strongReference(true)
                .register(registry));
        counts.gauges.add(Gauge.builder("queuegate.active", counts.active, AtomicLong::get)
                .description("Users holding a place (unexpired sessions), as last read from Redis")
                .tag("product", productId)
                .strongReference(true)
                .register(registry));
        for (RoomMode mode : RoomMode.values()) {
            counts.gauges.add(Gauge.builder("queuegate.mode", counts.mode, current -> current.get() == mode ? 1 : 0)
                    .description("1 for the product's room mode, 0 for the others, as last read from Redis")
                    .tags("product", productId, "mode", mode.code())
                    .strongReference(true)
                    .register(registry));
        }
        counts.gauges.add(Gauge.builder("queuegate.draining", counts.draining, AtomicLong::get)
                .description("1 while the product turns new shoppers away (drain), as last read from Redis")
                .tag("product", productId)
                .strongReference(true)
                .register(registry));
        // NaN while unknown: Prometheus then has no value rather than a 0 that would read as sold out.
        counts.gauges.add(Gauge.builder("queuegate.stock", counts.stock, AtomicReference::get)
                .description("Units the product has left to sell, admitted carts included, as last read from Redis")
                .tag("product", productId)
                .strongReference(true)
                .register(registry));
        return counts;
    }

    @Override
    public void start() {
        periodically.start();
    }

    @Override
    public void stop() {
        periodically.stop();
    }

    @Override
    public boolean isRunning() {
        return periodically.isRunning();
    }

    private record Counts(AtomicLong waiting, AtomicLong active, AtomicReference<RoomMode> mode, AtomicLong draining,
            AtomicReference<Double> stock, List<Gauge> gauges) {
    }
}
