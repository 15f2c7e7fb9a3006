package io.queuegate.config;

import java.time.Duration;

import io.queuegate.admission.CompletionRule;

/**
 * The complete, validated queue settings that apply to one product on one route.
 *
 * @param maxActive users admitted at once; default 10 (the seed's {@code ACTIVE_MAX})
 * @param sessionTtl an admitted user's time to finish; default 10 minutes
 * @param promotion how waiting users are promoted; default {@link Promotion#PUBSUB}
 * @param completeOn the request that ends a session on a 2xx answer; default none
 * @param onRedisFailure behaviour while Redis cannot answer; default {@link RedisFailureMode#CLOSED}
 * @param productIdVariable the path variable holding the product id; default {@code productId}
 */
public record QueuePolicy(
        int maxActive,
        Duration sessionTtl,
        Promotion promotion,
        CompletionRule completeOn,
        RedisFailureMode onRedisFailure,
        String productIdVariable) {

    public static final int DEFAULT_MAX_ACTIVE = 10;
    public static final Duration DEFAULT_SESSION_TTL = Duration.ofMinutes(10);
    public static final Promotion DEFAULT_PROMOTION = Promotion.PUBSUB;
    public static final RedisFailureMode DEFAULT_ON_REDIS_FAILURE = RedisFailureMode.CLOSED;
    public static final String DEFAULT_PRODUCT_ID_VARIABLE = "productId";

    public QueuePolicy {
        if (maxActive < 1) {
            throw new IllegalArgumentException("max-active must be at least 1, was " + maxActive);
        }
        if (sessionTtl.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("session-ttl must be at least 1s, was " + sessionTtl);
        }
        if (productIdVariable.isBlank()) {
            throw new IllegalArgumentException("product-id-variable must not be blank");
        }
    }

    /** Fills the unset fields of {@code settings} with the defaults and validates the result. */
    public static QueuePolicy from(QueueSettings settings) {
        String completeOn = settings.completeOn();
        return new QueuePolicy(
                settings.maxActive() != null ? settings.maxActive() : DEFAULT_MAX_ACTIVE,
                settings.sessionTtl() != null ? settings.sessionTtl() : DEFAULT_SESSION_TTL,
                settings.promotion() != null ? settings.promotion() : DEFAULT_PROMOTION,
                completeOn == null || completeOn.isBlank() ? CompletionRule.NONE : CompletionRule.parse(completeOn),
                settings.onRedisFailure() != null ? settings.onRedisFailure() : DEFAULT_ON_REDIS_FAILURE,
                settings.productIdVariable() != null ? settings.productIdVariable() : DEFAULT_PRODUCT_ID_VARIABLE);
    }
}
