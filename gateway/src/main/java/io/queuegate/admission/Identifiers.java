package io.queuegate.admission;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Pattern;

import io.queuegate.identity.UserIds;

/** Checks product ids before they become part of a Redis key, and makes ids for anonymous callers. */
public final class Identifiers {

    /**
     * At most 64 characters of {@code [A-Za-z0-9_.-]}; and starting with a letter or
     * digit, so that {@code .} and {@code ..} (path segments, not products) are refused.
     */
    private static final Pattern PRODUCT_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    private static final SecureRandom RANDOM = new SecureRandom();

    private Identifiers() {
    }

    public static String requireProductId(String productId) {
        if (productId == null || !PRODUCT_ID.matcher(productId).matches()) {
            throw new QueueRejection(Refusal.INVALID_PRODUCT,
                    "the product id must be 1 to 64 characters of A-Z, a-z, 0-9, '_', '.' or '-', "
                            + "starting with a letter or digit");
        }
        return productId;
    }

    /**
     * Checks a product id against a route's {@code product-id-pattern} as well, so one product
     * cannot be queued under several spellings ({@code 042} and {@code 42}).
     *
     * @param pattern the route's pattern, or {@code null} when it has none
     */
    public static String requireProductId(String productId, Pattern pattern) {
        requireProductId(productId);
        if (pattern != null && !pattern.matcher(productId).matches()) {
            throw new QueueRejection(Refusal.INVALID_PRODUCT,
                    "the product id does not match this route's product-id-pattern " + pattern.pattern());
        }
        return productId;
    }

    /** 96 random bits naming one request's completion claim, so only that request can give it back. */
    public static String newClaimId() {
        byte[] bytes = new byte[12];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** 128 random bits: unguessable, so nobody can take over an anonymous caller's place. */
    public static String newAnonymousUserId() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return UserIds.ANONYMOUS_PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
