package io.queuegate.store;

import reactor.core.publisher.Mono;

/**
 * Recovers a product whose state Redis lost or replaced ({@link StaleProductException}) before
 * its scripts decide on it again: {@code recover.lua} with what this instance remembers of it.
 * {@link ProductQueues} asks for it whenever a script declines, then asks the script again.
 */
public interface ProductRecovery {

    /**
     * @param rules the product's rules, or {@code null} when the caller has no route at hand (a
     *              status request, a leave, an operator): the state keeps those it has
     */
    Mono<Void> recover(String productId, ProductRules rules);

    /** A join used these rules for the product: a recovery asked for without them can use them. */
    default void rulesUsed(String productId, ProductRules rules) {
    }

    /**
     * The rules this instance's last join of the product used, or {@code null} when it remembers
     * none: a pass check relies on Redis holding the route's current rules only when they match.
     */
    default ProductRules lastRules(String productId) {
        return null;
    }
}
