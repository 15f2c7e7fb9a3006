package io.queuegate.promotion;

import java.time.Duration;
import java.util.List;

import io.queuegate.admission.RedisFailures;
import io.queuegate.config.Promotion;
import io.queuegate.store.QueueStore;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The periodic promotion passes: every {@code scheduler.interval} for products on
 * {@code promotion: scheduler}, and every {@code safety-net.interval} for all products, which
 * catches what events miss (sessions that simply expire, messages sent while nobody listened).
 * Each pass walks the product registry and runs {@code promote.lua} per product, so any number
 * of instances may run it at once: the script never admits beyond max-active. Products with a
 * clock of their own (opens-at, max-admit-per-minute) are also promoted every
 * {@link QueueStore#TIMED_PERIOD} by each instance that saw them joined.
 */
public class PromotionScheduler implements SmartLifecycle {

    private static final Log log = LogFactory.getLog(PromotionScheduler.class);

    /** Products promoted at once in one pass; bounds the Redis load of a large registry. */
    private static final int CONCURRENCY = 8;

    private final QueueStore store;
    private final Duration schedulerInterval;
    private final Duration safetyNetInterval;
    private volatile Disposable.Composite running;

    public PromotionScheduler(QueueStore store, Duration schedulerInterval, Duration safetyNetInterval) {
        this.store = store;
        this.schedulerInterval = schedulerInterval;
        this.safetyNetInterval = safetyNetInterval;
    }

    @Override
    public void start() {
        running = Disposables.composite(
                every(schedulerInterval, Promotion.SCHEDULER.id()),
                every(safetyNetInterval, ""),
                Flux.interval(QueueStore.REGISTRATION_PERIOD, QueueStore.REGISTRATION_PERIOD)
                        .onBackpressureDrop()
                        .concatMap(tick -> store.registerNewProducts().onErrorResume(error -> Mono.empty()), 1)
                        .subscribe(),
                Flux.interval(QueueStore.TIMED_PERIOD, QueueStore.TIMED_PERIOD)
                        .onBackpressureDrop()
                        .concatMap(tick -> promoteTimed(), 1)
                        .subscribe());
    }

    @Override
    public void stop() {
        Disposable.Composite current = running;
        if (current != null) {
            current.dispose();
        }
        running = null;
    }

    @Override
    public boolean isRunning() {
        return running != null;
    }

    /**
     * One pass over every registered product.
     *
     * @param onlyStrategy promote only products on this strategy; empty for all
     * @return the users moved in this pass
     */
    public Mono<Long> promoteAll(String onlyStrategy) {
        return store.products()
                .flatMap(productId -> promoteOne(productId, onlyStrategy), CONCURRENCY)
                .reduce(0L, Long::sum);
    }

    /**
     * One pass over the timed products joined on this instance (a sale to open, a pace to keep):
     * no freed place announces that an opening or a paced admission has become due, so they are
     * promoted on a short clock. Every instance runs it; the script admits only what is due.
     */
    public Mono<Long> promoteTimed() {
        return Flux.fromIterable(List.copyOf(store.timedProducts()))
                .flatMap(productId -> store.promote(productId, "")
                        .doOnNext(moved -> {
                            if (moved == -1) {
                                store.forgetTimed(productId);
                            }
                        })
                        .map(moved -> Math.max(moved, 0L))
                        .onErrorResume(error -> Mono.just(0L)), CONCURRENCY)
                .reduce(0L, Long::sum);
    }

    private Mono<Long> promoteOne(String productId, String onlyStrategy) {
        return store.promote(productId, onlyStrategy)
                .flatMap(moved -> moved == -1 ? store.forgetIfIdle(productId).thenReturn(0L)
                        : Mono.just(Math.max(moved, 0L)))
                .onErrorResume(error -> {
                    if (RedisFailures.isRedisFailure(error)) {
                        store.events().redisFailure(productId, "promotion", error);
                    }
                    log.warn("Promotion pass failed for product " + productId + ": " + error);
                    return Mono.just(0L);
                });
    }

    private Disposable every(Duration interval, String onlyStrategy) {
        // A pass slower than its period skips ticks instead of piling up behind itself.
        return Flux.interval(interval, interval)
                .onBackpressureDrop()
                .concatMap(tick -> promoteAll(onlyStrategy)
                        .onErrorResume(error -> {
                            log.warn("Promotion pass failed; retrying next period: " + error);
                            return Mono.just(0L);
                        }), 1)
                .subscribe();
    }
}
