package io.queuegate.store;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.ScanOptions;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The set of products with people in line ({@link QueueKeys#PRODUCTS}), walked by the safety
 * net's backstop pass and listed by the queues endpoint. It is a key of no product's slot, so it
 * is written off the request path: products that got new waiters are gathered here and added in
 * one command every {@link #FLUSH_PERIOD}.
 */
public final class ProductRegistry {

    /** How often gathered products are written. */
    public static final Duration FLUSH_PERIOD = Duration.ofMillis(250);

    private final ReactiveStringRedisTemplate redis;
    private final RedisGuard guard;
    private final QueueScripts scripts;
    private final Clock clock;
    private final Set<String> unregistered = ConcurrentHashMap.newKeySet();

    public ProductRegistry(ReactiveStringRedisTemplate redis, RedisGuard guard, QueueScripts scripts, Clock clock) {
        this.redis = redis;
        this.guard = guard;
        this.scripts = scripts;
        this.clock = clock;
    }

    /** Notes that the product got a new waiter; written with the next flush. */
    public void add(String productId) {
        unregistered.add(productId);
    }

    /** Adds the products gathered since the last call, in one command. */
    public Mono<Void> flush() {
        if (unregistered.isEmpty()) {
            return Mono.empty();
        }
        List<String> batch = List.copyOf(unregistered);
        batch.forEach(unregistered::remove);
        return register(batch.toArray(String[]::new)).then().doOnError(error -> unregistered.addAll(batch));
    }

    /** Every product that currently has a queue; scanned, so a large registry never blocks Redis. */
    public Flux<String> products() {
        return guard.guard(redis.opsForSet().scan(QueueKeys.PRODUCTS, ScanOptions.scanOptions().count(500).build()));
    }

    /**
     * Drops a product whose line was seen empty. Re-checks after removing: a join that enqueued
     * before the removal is seen by the re-check and put back; one that enqueues after it
     * registers the product itself. Either way no waiter is left outside the registry.
     */
    public Mono<Void> forgetIfIdle(String productId) {
        return guard.guard(redis.opsForSet().remove(QueueKeys.PRODUCTS, productId))
                .then(scripts.snapshot().run(productId, clock.millis()))
                .flatMap(queue -> queue.waiting() > 0 ? register(productId).then() : Mono.<Void>empty());
    }

    private Mono<Long> register(String... productIds) {
        return guard.guard(redis.opsForSet().add(QueueKeys.PRODUCTS, productIds));
    }
}
