package io.queuegate.promotion;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.queuegate.config.Promotion;
import io.queuegate.events.QueueEvents;
import io.queuegate.events.RedisOperation;
import io.queuegate.room.PromotionOutcome;
import io.queuegate.store.DueIndex;
import io.queuegate.store.ProductQueues;
import io.queuegate.store.ProductRegistry;
import io.queuegate.store.QueueKeys;
import io.queuegate.store.RedisFailures;
import io.queuegate.store.TimedProducts;
import io.queuegate.store.script.DueScript;
import io.queuegate.store.script.RescheduleScript;

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
 * Each pass takes the products due by now from the due index and runs {@code due.lua} per
 * product, so any number of instances may run it at once: the script never admits beyond
 * max-active. Every {@value #SWEEP_EVERY}th safety-net pass walks the whole registry instead. Products with a
 * clock of their own (opens-at, max-admit-per-minute) are also promoted every
 * {@link TimedProducts#PERIOD} by each instance that knows of them.
 */
public class PromotionScheduler implements SmartLifecycle {

    private static final Log log = LogFactory.getLog(PromotionScheduler.class);

    /** Products promoted at once in one pass; bounds the Redis load of a large registry. */
    private static final int CONCURRENCY = 8;

    /** Results written back to the due index in one call. */
    private static final int RESCHEDULE_BATCH = 500;

    /** Every this many safety-net passes, the whole registry is walked instead of the due index. */
    static final int SWEEP_EVERY = 10;

    private final ProductQueues store;
    private final DueIndex due;
    private final ProductRegistry registry;
    private final TimedProducts timed;
    private final QueueEvents events;
    private final Duration schedulerInterval;
    private final Duration safetyNetInterval;
    private volatile Disposable.Composite running;

    public PromotionScheduler(ProductQueues store, DueIndex due, ProductRegistry registry, TimedProducts timed,
            QueueEvents events, Duration schedulerInterval, Duration safetyNetInterval) {
        this.store = store;
        this.due = due;
        this.registry = registry;
        this.timed = timed;
        this.events = events;
        this.schedulerInterval = schedulerInterval;
        this.safetyNetInterval = safetyNetInterval;
    }

    @Override
    public void start() {
        running = Disposables.composite(
                every(schedulerInterval, tick -> promoteDue(Promotion.SCHEDULER.id())),
                // Every SWEEP_EVERY-th safety-net pass walks the whole registry instead.
                every(safetyNetInterval, tick -> (tick + 1) % SWEEP_EVERY == 0 ? promoteAll("") : promoteDue("")),
                Flux.interval(ProductRegistry.FLUSH_PERIOD, ProductRegistry.FLUSH_PERIOD)
                        .onBackpressureDrop()
                        .concatMap(tick -> registry.flush()
                                .then(due.flush())
                                .onErrorResume(error -> Mono.empty()), 1)
                        .subscribe(),
                Flux.interval(TimedProducts.PERIOD, TimedProducts.PERIOD)
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
     * One pass over the products whose promotion may be due by now ({@link QueueKeys#DUE}): each
     * is promoted, then told when it is next due (the earliest session end, the next paced
     * admission, the opening), so a pass costs one script call per product with due work, not
     * per product. Products are marked due by new waiters and promotions on any instance.
     *
     * @param onlyStrategy promote only products on this strategy; empty for all
     * @return the users moved in this pass
     */
    public Mono<Long> promoteDue(String onlyStrategy) {
        return due.due(store.millis())
                .flatMap(entry -> store.promoteDue(entry.getValue(), onlyStrategy)
                        .map(result -> new Outcome(entry.getValue(), entry.getScore(), result))
                        .onErrorResume(error -> failed(entry.getValue(), error)), CONCURRENCY)
                .buffer(RESCHEDULE_BATCH)
                .concatMap(outcomes -> {
                    List<RescheduleScript.Entry> entries = new ArrayList<>();
                    for (Outcome outcome : outcomes) {
                        if (outcome.result().nextDue() != DueScript.UNCHANGED) {
                            entries.add(new RescheduleScript.Entry(outcome.productId(), outcome.dueAt(),
                                    outcome.result().nextDue()));
                        }
                    }
                    return due.reschedule(entries)
                            .then(forgetIdle(outcomes))
                            .thenReturn(moved(outcomes));
                })
                .reduce(0L, Long::sum);
    }

    /**
     * One pass over every registered product, due or not: the backstop for a due mark that never
     * reached Redis (an instance that died within a registration period of a promotion). It
     * puts every product it finds with work ahead back into the due index.
     *
     * @param onlyStrategy promote only products on this strategy; empty for all
     * @return the users moved in this pass
     */
    public Mono<Long> promoteAll(String onlyStrategy) {
        return registry.products()
                .flatMap(productId -> store.promoteDue(productId, onlyStrategy)
                        .map(result -> new Outcome(productId, 0, result))
                        .onErrorResume(error -> failed(productId, error)), CONCURRENCY)
                .buffer(RESCHEDULE_BATCH)
                .concatMap(outcomes -> {
                    Map<String, Long> dueAt = new HashMap<>();
                    outcomes.stream().filter(outcome -> outcome.result().nextDue() >= 0)
                            .forEach(outcome -> dueAt.put(outcome.productId(), outcome.result().nextDue()));
                    return due.dueBy(dueAt).then(forgetIdle(outcomes)).thenReturn(moved(outcomes));
                })
                .reduce(0L, Long::sum);
    }

    private Mono<Outcome> failed(String productId, Throwable error) {
        if (RedisFailures.isRedisFailure(error)) {
            events.redisFailure(productId, RedisOperation.PROMOTION, error);
        }
        log.warn("Promotion pass failed for product " + productId + ": " + error);
        return Mono.empty();
    }

    private Mono<Void> forgetIdle(List<Outcome> outcomes) {
        return Flux.fromIterable(outcomes)
                // Nobody waits, or nothing is due until an event: forgetIfIdle keeps a product in
                // the registry while anyone waits.
                .filter(outcome -> outcome.result().outcome() == PromotionOutcome.EMPTY
                        || outcome.result().nextDue() == DueScript.ON_EVENT)
                .concatMap(outcome -> registry.forgetIfIdle(outcome.productId()))
                .then();
    }

    private static long moved(List<Outcome> outcomes) {
        return outcomes.stream().mapToLong(outcome -> outcome.result().moved()).sum();
    }

    /** One product's result in a pass: as {@code due.lua} answered, with the score it was due at. */
    private record Outcome(String productId, double dueAt, DueScript.Result result) {
    }

    /**
     * One pass over the timed products joined on this instance (a sale to open, a pace to keep):
     * no freed place announces that an opening or a paced admission has become due, so they are
     * promoted on a short clock. Every instance runs it; the script admits only what is due.
     */
    public Mono<Long> promoteTimed() {
        return Flux.fromIterable(timed.snapshot())
                .flatMap(productId -> store.promote(productId, "")
                        .doOnNext(promoted -> {
                            if (promoted.outcome() == PromotionOutcome.EMPTY) {
                                timed.forget(productId);
                            }
                        })
                        .map(promoted -> promoted.moved())
                        .onErrorResume(error -> Mono.just(0L)), CONCURRENCY)
                .reduce(0L, Long::sum);
    }

    private Disposable every(Duration interval, java.util.function.LongFunction<Mono<Long>> pass) {
        // A pass slower than its period skips ticks instead of piling up behind itself.
        return Flux.interval(interval, interval)
                .onBackpressureDrop()
                .concatMap(tick -> pass.apply(tick)
                        .onErrorResume(error -> {
                            log.warn("Promotion pass failed; retrying next period: " + error);
                            return Mono.just(0L);
                        }), 1)
                .subscribe();
    }
}
