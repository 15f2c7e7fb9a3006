package io.queuegate.invites;

import java.time.Instant;

/**
 * A shop's invitation, once its signature and claims were checked: it lets its holder take a
 * place where a product's {@code invites} setting asks for one.
 *
 * @param id the invitation's {@code jti}: its uses are counted under it, per product
 * @param productId the product it is for ({@code pid}), or {@link #ANY_PRODUCT}
 * @param subject the only shopper who may use it ({@code sub}), or {@code null} for whoever holds it
 * @param uses how many places it may make, per product ({@code uses}, default 1)
 * @param expiresAt when it stops being accepted ({@code exp})
 */
public record Invitation(String id, String productId, String subject, long uses, Instant expiresAt) {

    /** The {@code pid} of an invitation valid for every product. */
    public static final String ANY_PRODUCT = "*";
}
