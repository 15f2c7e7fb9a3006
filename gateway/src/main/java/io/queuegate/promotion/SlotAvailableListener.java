package io.queuegate.promotion;

import java.time.Duration;

import io.queuegate.store.QueueKeys;
import io.queuegate.store.QueueStore;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * {@code promotion: pubsub}: every instance listens on {@code qg:slot-available:*} and promotes
 * the announced product. All instances hear every message; {@code promote.lua} admits only as
 * many as there are free places, so the others find nothing to do. Messages sent while the
 * subscription is down are lost, which is what the safety net is for.
 */
public class SlotAvailableListener implements SmartLifecycle {

    private static final Log log = LogFactory.getLog(SlotAvailableListener.class);

    private final ReactiveStringRedisTemplate redis;
    private final QueueStore store;
    private volatile Disposable subscription;

    public SlotAvailableListener(ReactiveStringRedisTemplate redis, QueueStore store) {
        this.redis = redis;
        this.store = store;
    }

    @Override
    public void start() {
        subscription = redis.listenToPattern(QueueKeys.SLOT_AVAILABLE_PATTERN)
                .concatMap(message -> promote(QueueKeys.productOfChannel(message.getChannel())))
                // Resubscribe after Redis comes back; a lost subscription must not end promotion.
                .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(200)).maxBackoff(Duration.ofSeconds(5))
                        .doBeforeRetry(signal -> log.warn("Slot-available subscription lost; resubscribing: "
                                + signal.failure())))
                .subscribe();
    }

    private Mono<Long> promote(String productId) {
        if (productId == null) {
            return Mono.empty();
        }
        return store.promote(productId, "").onErrorResume(error -> {
            log.warn("Promotion after a slot-available message failed for product " + productId + ": " + error);
            return Mono.empty();
        });
    }

    @Override
    public void stop() {
        Disposable current = subscription;
        if (current != null) {
            current.dispose();
        }
        subscription = null;
    }

    @Override
    public boolean isRunning() {
        return subscription != null;
    }
}
