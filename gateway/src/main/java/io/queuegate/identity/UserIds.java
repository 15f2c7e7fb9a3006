package io.queuegate.identity;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * Turns a caller's identity into the id QueueGate keeps in Redis and in the token. Most ids
 * ({@code alice}, {@code 1234}, {@code alice@example.com}, a UUID) are used as they are. Names
 * outside that alphabet, or longer than 128 characters ({@code auth0|123}, {@code Ana María}),
 * are never refused: they become {@code #} followed by 22 characters of their SHA-256, a stable
 * id that cannot carry key or channel syntax. {@code #} is outside the alphabet, so no
 * identity can name itself into another's hashed id; ids that look like QueueGate's own
 * anonymous ids ({@code anon-...}) are hashed too, for the same reason.
 */
public final class UserIds {

    /** Wide enough for e-mails and UUIDs, narrow enough that no id can smuggle key syntax. */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_.@:+-]{1,128}");

    /** The prefix of the ids QueueGate makes for anonymous callers. */
    public static final String ANONYMOUS_PREFIX = "anon-";

    static final String HASHED_PREFIX = "#";

    /** The longest identity forwarded as it came. */
    static final int MAX_FORWARDED = 512;

    private UserIds() {
    }

    /** The queue id of an identity; {@code name} must not be empty. */
    public static String of(String name) {
        if (PLAIN.matcher(name).matches() && !name.startsWith(ANONYMOUS_PREFIX)) {
            return name;
        }
        return HASHED_PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(sha256(name)).substring(0, 22);
    }

    /**
     * What the shop is told a caller is, in the forwarded identity header: the identity as it came
     * when a header can carry it unchanged (printable ASCII, no surrounding spaces, at most
     * {@value #MAX_FORWARDED} characters: {@code auth0|123}, an e-mail with {@code +}), else its
     * queue id ({@link #of}), which the shop can compute too.
     */
    public static String forwardable(String name) {
        if (name.isEmpty() || name.length() > MAX_FORWARDED || name.charAt(0) == ' '
                || name.charAt(name.length() - 1) == ' ') {
            return of(name);
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return of(name);
            }
        }
        return name;
    }

    private static byte[] sha256(String name) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", ex);
        }
    }
}
