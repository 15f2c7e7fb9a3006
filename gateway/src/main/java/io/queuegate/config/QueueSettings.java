package io.queuegate.config;

import java.time.Duration;

/**
 * The {@code queue} block of a route's metadata, or a per-product override under
 * {@code queuegate.products.<id>}: every field may be absent, and absent fields fall back to
 * the route's block and then to the defaults of {@link QueuePolicy}.
 *
 * @param maxActive users admitted at once, per product
 * @param sessionTtl an admitted user's time to finish
 * @param promotion how waiting users are promoted
 * @param completeOn the request ({@code "METHOD /path/{productId}/..."}) whose 2xx ends a session
 * @param onRedisFailure what the route does while Redis cannot answer
 * @param productIdVariable the route path variable that holds the product id
 */
public record QueueSettings(
        Integer maxActive,
        Duration sessionTtl,
        Promotion promotion,
        String completeOn,
        RedisFailureMode onRedisFailure,
        String productIdVariable) {

    /** Settings with nothing set. */
    public static final QueueSettings EMPTY = new QueueSettings(null, null, null, null, null, null);

    /** These settings, with each field that {@code override} sets replaced by its value. */
    public QueueSettings overriddenBy(QueueSettings override) {
        if (override == null) {
            return this;
        }
        return new QueueSettings(
                pick(override.maxActive, maxActive),
                pick(override.sessionTtl, sessionTtl),
                pick(override.promotion, promotion),
                pick(override.completeOn, completeOn),
                pick(override.onRedisFailure, onRedisFailure),
                pick(override.productIdVariable, productIdVariable));
    }

    private static <T> T pick(T preferred, T fallback) {
        return preferred != null ? preferred : fallback;
    }
}
