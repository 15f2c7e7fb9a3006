package io.queuegate.admission;

/**
 * Who is asking, for which product, once identity and token are checked.
 *
 * @param productId the validated product id
 * @param userId the shop's user id, or the gateway-made id of an anonymous caller
 * @param anonymous whether the gateway made the id
 * @param hasToken whether a valid token for this product was presented (else one must be issued)
 */
public record Caller(String productId, String userId, boolean anonymous, boolean hasToken) {
}
