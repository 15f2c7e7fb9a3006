package io.queuegate.admission;

import java.time.Instant;

/**
 * Who is asking, for which product, once identity and token are checked.
 *
 * @param productId the validated product id
 * @param userId the shop's user id, or the gateway-made id of an anonymous caller
 * @param anonymous whether the gateway made the id
 * @param hasToken whether a valid token for this product was presented (else one must be issued)
 * @param joinedAt when the caller's token says it joined the line it still waited in, else {@code null}
 */
public record Caller(String productId, String userId, boolean anonymous, boolean hasToken, Instant joinedAt) {

    /** A caller whose token (if any) says nothing about waiting. */
    public Caller(String productId, String userId, boolean anonymous, boolean hasToken) {
        this(productId, userId, anonymous, hasToken, null);
    }
}
