package io.queuegate.store;

import io.queuegate.room.Joined;
import io.queuegate.room.Joiner;
import io.queuegate.room.PlaceStatus;
import io.queuegate.room.Reclaim;

import reactor.core.publisher.Mono;

/**
 * What the admission decision asks of the store about shoppers' places: a join (or finding where
 * a shopper stands) under a product's rules, an admitted shopper's pass confirmed, a sale, an end
 * without one, a leave, a completion claim given back, and what the shop said of the stock.
 * {@link ProductQueues} answers it from Redis, one script a call; admission's own tests answer it
 * from memory, and a contract test holds both to the same answers.
 */
public interface PlaceStore {

    /** Whether the product is one of {@code queuegate.products}: its state outlives its sessions. */
    boolean isConfigured(String productId);

    /** The clock every decision of the store is made at (epoch ms). */
    long millis();

    /**
     * Joins the user under the product's rules, or finds where they stand, and fills free places in
     * the same step.
     */
    Mono<Joined> join(String productId, ProductRules rules, Joiner joiner);

    /**
     * The end of the user's session (epoch ms) when the store confirms that they still hold it, in
     * a room that lets admitted shoppers through; empty when it cannot say so (they hold none, the
     * room is closed, the store's state is of another epoch or gone, or it does not hold the
     * route's {@code rules} yet), and {@link #join} then decides. Reads only: the check of a pass
     * that ran out in the active cache.
     */
    Mono<Long> confirmPass(String productId, ProductRules rules, String userId);

    /**
     * Where the user stands, without joining; after a loss, what their token proves comes back
     * first ({@code reclaim}, or {@code null}).
     */
    Mono<PlaceStatus> status(String productId, String userId, Reclaim reclaim);

    /**
     * Ends an admitted user's session on a sale the shop confirmed, counting it against the stock.
     *
     * @param unitsLeft what the shop's answer said is left ({@code Queue-Stock}), or {@code null}
     * @param forwardedAt when the completing request was forwarded (epoch ms)
     * @return whether the user held a place
     */
    Mono<Boolean> complete(String productId, String userId, Long unitsLeft, long forwardedAt);

    /**
     * Ends the user's place on the shop's word without a sale ({@code Queue-Release}, a redirect that
     * sold nothing), and refills it at once; nothing is counted against the stock.
     *
     * @param unitsLeft what the shop's answer said is left ({@code Queue-Stock}), or {@code null}
     * @param forwardedAt when the request was forwarded (epoch ms)
     * @return whether the user held a place
     */
    Mono<Boolean> endWithoutSale(String productId, String userId, Long unitsLeft, long forwardedAt);

    /**
     * Gives back a completion claim whose request the shop refused, if that request still holds it.
     *
     * @return whether it held the claim
     */
    Mono<Boolean> releaseCompletion(String productId, String userId, String claim);

    /**
     * Ends the user's place (waiting or active) and refills it at once.
     *
     * @return whether the user held a place
     */
    Mono<Boolean> leave(String productId, String userId);

    /**
     * The shop said it sells no such product: the session ends and an unconfigured product's state goes.
     *
     * @return whether the user held a place
     */
    Mono<Boolean> unknown(String productId, String userId);

    /**
     * The shop said what is left of a product, up or down; ignored when the request it answered was
     * forwarded before the stock's last change.
     *
     * @param forwardedAt when the request was forwarded (epoch ms)
     * @return the units left after it, -1 when the store holds nothing of the product
     */
    Mono<Long> stockSaid(String productId, long unitsLeft, long forwardedAt);
}
