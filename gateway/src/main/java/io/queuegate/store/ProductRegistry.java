package io.queuegate.store;

import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.ZSetOperations.TypedTuple;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The set of products with people in line ({@link QueueKeys#PRODUCTS}), walked by the safety
 * net's backstop pass, and the products by their last activity ({@link QueueKeys#ACTIVITY}: new
 * waiters, admissions and operators' changes), from which operators' lists are ranked. Both are keys of no product's
 * slot, so they are written off the request path: products are gathered here and written in one
 * command each every {@link #FLUSH_PERIOD}. The activity index keeps the most recent
 * {@link #MAX_ACTIVE_PRODUCTS} for {@link #ACTIVITY_KEPT}: a flood of invented ids pushes out the
 * idle ones first, never a product that keeps being asked for.
 */
public final class ProductRegistry {

    /** How often gathered products are written. */
    public static final Duration FLUSH_PERIOD = Duration.ofMillis(250);

    /** The most products the activity index keeps. */
    public static final int MAX_ACTIVE_PRODUCTS = 10_000;

    /** How long a product stays in the activity index after its last activity. */
    public static final Duration ACTIVITY_KEPT = Duration.ofHours(3);

    private final ReactiveStringRedisTemplate redis;
    private final RedisGuard guard;
    private final QueueScripts scripts;
    private final Clock clock;
    private final Set<String> unregistered = ConcurrentHashMap.newKeySet();
    private final Set<String> active = ConcurrentHashMap.newKeySet();

    public ProductRegistry(ReactiveStringRedisTemplate redis, RedisGuard guard, QueueScripts scripts, Clock clock) {
        this.redis = redis;
        this.guard = guard;
        this.scripts = scripts;
        this.clock = clock;
    }

    /** Notes that the product got a new waiter; written with the next flush. */
    public void add(String productId) {
        unregistered.add(productId);
        active.add(productId);
    }

    /** Notes that the product admitted someone; written with the next flush. */
    public void admitted(String productId) {
        active.add(productId);
    }

    /**
     * Notes that an operator changed the product (its room, its cap, its stock); written with the
     * next flush. It counts as activity: operators' lists show it though nobody may be in it.
     */
    public void changed(String productId) {
        active.add(productId);
    }

    /** Writes the products gathered since the last call: one command per key, and a trim. */
    public Mono<Void> flush() {
        return Mono.when(flushWaiting(), flushActivity());
    }

    private Mono<Void> flushWaiting() {
        if (unregistered.isEmpty()) {
            return Mono.empty();
        }
        List<String> batch = List.copyOf(unregistered);
        batch.forEach(unregistered::remove);
        return register(batch.toArray(String[]::new)).then().doOnError(error -> unregistered.addAll(batch));
    }

    private Mono<Void> flushActivity() {
        if (active.isEmpty()) {
            return Mono.empty();
        }
        List<String> batch = List.copyOf(active);
        batch.forEach(active::remove);
        long now = clock.millis();
        Set<TypedTuple<String>> scored = new HashSet<>();
        batch.forEach(productId -> scored.add(TypedTuple.of(productId, (double) now)));
        return guard.guard(redis.opsForZSet().addAll(QueueKeys.ACTIVITY, scored)
                        .then(redis.opsForZSet().removeRangeByScore(QueueKeys.ACTIVITY,
                                Range.closed(0.0, (double) (now - ACTIVITY_KEPT.toMillis()))))
                        .then(redis.opsForZSet().removeRange(QueueKeys.ACTIVITY,
                                Range.closed(0L, (long) -(MAX_ACTIVE_PRODUCTS + 1)))))
                .then()
                .doOnError(error -> active.addAll(batch));
    }

    /** The products of the activity index, the most recently active first, at most {@code limit}. */
    public Flux<String> recentlyActive(int limit) {
        return guard.guard(redis.opsForZSet().reverseRange(QueueKeys.ACTIVITY,
                Range.closed(0L, (long) limit - 1)));
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
