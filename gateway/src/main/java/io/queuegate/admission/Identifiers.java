package io.queuegate.admission;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Pattern;

import io.queuegate.web.QueueError;

/** Checks ids before they become part of a Redis key, and makes ids for anonymous callers. */
public final class Identifiers {

    /**
     * DESIGN.md: at most 64 characters of {@code [A-Za-z0-9_.-]}; and starting with a letter or
     * digit, so that {@code .} and {@code ..} (path segments, not products) are refused.
     */
    private static final Pattern PRODUCT_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    /** Wide enough for emails and UUIDs, narrow enough that no id can smuggle key syntax. */
    private static final Pattern USER_ID = Pattern.compile("[A-Za-z0-9_.@:+-]{1,128}");

    private static final String ANONYMOUS_PREFIX = "anon-";
    private static final SecureRandom RANDOM = new SecureRandom();

    private Identifiers() {
    }

    public static String requireProductId(String productId) {
        if (productId == null || !PRODUCT_ID.matcher(productId).matches()) {
            throw new QueueRejection(QueueError.INVALID_PRODUCT,
                    "the product id must be 1 to 64 characters of A-Z, a-z, 0-9, '_', '.' or '-', "
                            + "starting with a letter or digit");
        }
        return productId;
    }

    public static String requireUserId(String userId) {
        if (!USER_ID.matcher(userId).matches()) {
            throw new QueueRejection(QueueError.INVALID_USER,
                    "the user id must be 1 to 128 characters of A-Z, a-z, 0-9, '_', '.', '@', ':', '+' or '-'");
        }
        return userId;
    }

    /** 128 random bits: unguessable, so nobody can take over an anonymous caller's place. */
    public static String newAnonymousUserId() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return ANONYMOUS_PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
