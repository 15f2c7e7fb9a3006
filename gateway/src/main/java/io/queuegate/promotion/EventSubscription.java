package io.queuegate.promotion;

import io.queuegate.store.Channels;


import org.apache.commons.logging.Log;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.NestedExceptionUtils;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * A long-lived subscription to Redis events that survives Redis going away: on error it
 * resubscribes with backoff, so a lost connection never ends promotion. Started only when a
 * route uses its strategy ({@link PromotionListeners}), never by the context itself; stopped by
 * the context before the Redis connection factory (phase 0) shuts down.
 */
abstract class EventSubscription implements SmartLifecycle {

    private final Log log;
    private volatile Disposable subscription;

    EventSubscription(Log log) {
        this.log = log;
    }

    /** The events and their handling, as one Flux that errors when the subscription breaks. */
    protected abstract Flux<?> events();

    protected abstract String description();

    @Override
    public synchronized void start() {
        if (subscription != null) {
            return;
        }
        subscription = Flux.defer(this::events)
                .retryWhen(Channels.RESUBSCRIBE.doBeforeRetry(signal -> log.warn(description() + " lost; resubscribing: "
                                + signal.failure() + " (cause: "
                                + NestedExceptionUtils.getMostSpecificCause(signal.failure()).getMessage() + ")")))
                .subscribe();
        log.info(description() + " started");
    }

    @Override
    public synchronized void stop() {
        if (subscription != null) {
            subscription.dispose();
            subscription = null;
        }
    }

    @Override
    public boolean isRunning() {
        return subscription != null;
    }

    @Override
    public boolean isAutoStartup() {
        return false;
    }
}
