package io.queuegate.promotion;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.pubsub.api.reactive.RedisClusterPubSubReactiveCommands;
import io.lettuce.core.codec.StringCodec;
import io.queuegate.events.QueueEvents;
import io.queuegate.events.RedisOperation;
import io.queuegate.room.ExpiryOutcome;
import io.queuegate.store.ProductQueues;
import io.queuegate.store.QueueKeys;
import io.queuegate.store.RedisFailures;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code promotion: keyspace}: Redis announces the expiry of each admitted user's slot key, so a
 * shopper who simply walks away frees the place the moment their session ends. Every instance
 * hears every event; {@code expire.lua} counts each expiry once. Events are fire-and-forget:
 * those sent while no instance listened are found by the safety net, which drops expired
 * sessions by their score.
 *
 * <p>On Redis Cluster an expiry is announced only by the node that holds the key (unlike
 * PUBLISH, which every node relays), so there the listener subscribes on every master through
 * Lettuce's cluster pub/sub with node message propagation. Masters that join the cluster later
 * are covered once the subscription is renewed (after any connection loss) and, until then, by
 * the safety net.
 */
public class SlotExpiryListener extends EventSubscription {

    private static final Log log = LogFactory.getLog(SlotExpiryListener.class);

    private final ReactiveStringRedisTemplate redis;
    private final ProductQueues store;
    private final QueueEvents events;

    public SlotExpiryListener(ReactiveStringRedisTemplate redis, ProductQueues store, QueueEvents events) {
        super(log);
        this.redis = redis;
        this.store = store;
        this.events = events;
    }

    @Override
    protected Flux<?> events() {
        return expiredKeys().concatMap(key -> expired(QueueKeys.productAndUserOfSlot(key)));
    }

    private Flux<String> expiredKeys() {
        if (redis.getConnectionFactory() instanceof LettuceConnectionFactory lettuce
                && lettuce.getNativeClient() instanceof RedisClusterClient cluster) {
            return Flux.usingWhen(Mono.fromFuture(() -> cluster.connectPubSubAsync(StringCodec.UTF8)),
                    connection -> {
                        connection.setNodeMessagePropagation(true);
                        RedisClusterPubSubReactiveCommands<String, String> pubsub = connection.reactive();
                        return pubsub.observePatterns()
                                .map(message -> message.getMessage())
                                .mergeWith(pubsub.masters().commands().psubscribe(QueueKeys.EXPIRED_EVENTS_PATTERN)
                                        .flux().thenMany(Flux.empty()));
                    },
                    connection -> Mono.fromFuture(connection.closeAsync()));
        }
        return redis.listenToPattern(QueueKeys.EXPIRED_EVENTS_PATTERN).map(message -> message.getMessage());
    }

    @Override
    protected String description() {
        return "Slot-expiry subscription (" + QueueKeys.EXPIRED_EVENTS_PATTERN + ")";
    }

    private Mono<ExpiryOutcome> expired(String[] productAndUser) {
        if (productAndUser == null) {
            return Mono.empty();
        }
        return store.expire(productAndUser[0], productAndUser[1]).onErrorResume(error -> {
            if (RedisFailures.isRedisFailure(error)) {
                events.redisFailure(productAndUser[0], RedisOperation.EXPIRY, error);
            }
            log.warn("Handling a slot expiry failed for product " + productAndUser[0]
                    + "; the safety net will: " + error);
            return Mono.empty();
        });
    }
}
