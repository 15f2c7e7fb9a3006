package io.queuegate.promotion;

import io.queuegate.events.QueueEvents;
import io.queuegate.events.RedisOperation;
import io.queuegate.store.ProductQueues;
import io.queuegate.store.QueueKeys;
import io.queuegate.store.RedisFailures;
import io.queuegate.store.script.PromoteScript;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code promotion: pubsub}: every instance listens on {@code qg:slot-available:*} and promotes
 * the announced product. All instances hear every message; {@code promote.lua} admits only as
 * many as there are free places, so the others find nothing to do. Messages sent while the
 * subscription is down are lost, which is what the safety net is for.
 */
public class SlotAvailableListener extends EventSubscription {

    private static final Log log = LogFactory.getLog(SlotAvailableListener.class);

    private final ReactiveStringRedisTemplate redis;
    private final ProductQueues store;
    private final QueueEvents events;

    public SlotAvailableListener(ReactiveStringRedisTemplate redis, ProductQueues store, QueueEvents events) {
        super(log);
        this.redis = redis;
        this.store = store;
        this.events = events;
    }

    @Override
    protected Flux<?> events() {
        return redis.listenToPattern(QueueKeys.SLOT_AVAILABLE_PATTERN)
                .concatMap(message -> promote(QueueKeys.productOfChannel(message.getChannel())));
    }

    @Override
    protected String description() {
        return "Slot-available subscription (" + QueueKeys.SLOT_AVAILABLE_PATTERN + ")";
    }

    private Mono<Long> promote(String productId) {
        if (productId == null) {
            return Mono.empty();
        }
        return store.promote(productId, "").map(PromoteScript.Result::moved).onErrorResume(error -> {
            if (RedisFailures.isRedisFailure(error)) {
                events.redisFailure(productId, RedisOperation.PROMOTION, error);
            }
            log.warn("Promotion after a slot-available message failed for product " + productId + ": " + error);
            return Mono.empty();
        });
    }
}
