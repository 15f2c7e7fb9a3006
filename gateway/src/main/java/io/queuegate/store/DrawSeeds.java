package io.queuegate.store;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The seeds of sales' pre-queue draws, derived rather than drawn: HMAC-SHA256, under a key only the
 * gateways hold (derived from {@code queuegate.token.secret}), of the product and the
 * {@code opens-at} of its sale. A draw is named by those two: a pre-queue forms only before its
 * sale opens, and a product that opens again before its last crowd got through draws nobody. So
 * the seed whose SHA-256 was shown from the pre-queue's first answer can be worked out again after
 * Redis forgot it, and the one revealed at the opening is still the one committed to; and nobody
 * without the key can tell it before the opening, as with a random seed.
 */
public final class DrawSeeds {

    /** More products than this are not cached (a flood of invented ids costs a hash each, not memory). */
    private static final int CACHED = 10_000;

    private final List<byte[]> keys;
    private final Map<String, DrawSeed> cached = new ConcurrentHashMap<>();

    /**
     * @param tokenSecret {@code queuegate.token.secret}: the seeds' key is derived from it
     * @param previousSecrets the secrets it replaced, whose draws may still be recovered
     */
    public DrawSeeds(String tokenSecret, List<String> previousSecrets) {
        List<byte[]> all = new ArrayList<>();
        all.add(derivedKey(tokenSecret));
        previousSecrets.forEach(secret -> all.add(derivedKey(secret)));
        this.keys = List.copyOf(all);
    }

    /** The seed of the product's sale that opens at {@code opensAt}, with its commitment. */
    public DrawSeed forSale(String productId, Instant opensAt) {
        String name = productId + ':' + opensAt.toEpochMilli();
        DrawSeed seed = cached.get(name);
        if (seed == null) {
            seed = DrawSeed.of(hmac(keys.get(0), name));
            if (cached.size() < CACHED) {
                cached.put(name, seed);
            }
        }
        return seed;
    }

    /**
     * The seed a draw was opened with, worked out again: the one whose commitment is
     * {@code commitment} under the current key or a previous one; without a commitment to check,
     * the current key's. {@code null} when none matches (a draw opened with a random seed, by the
     * release before this one, cannot be worked out again).
     */
    public DrawSeed recover(String productId, Instant opensAt, String commitment) {
        String name = productId + ':' + opensAt.toEpochMilli();
        for (byte[] key : keys) {
            DrawSeed seed = DrawSeed.of(hmac(key, name));
            if (commitment == null || seed.commitment().equals(commitment)) {
                return seed;
            }
        }
        return null;
    }

    private static byte[] derivedKey(String tokenSecret) {
        return HexFormat.of().parseHex(hmac(tokenSecret.getBytes(StandardCharsets.UTF_8), "queuegate draw seed"));
    }

    private static String hmac(byte[] key, String text) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
        }
        catch (GeneralSecurityException ex) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", ex);
        }
    }
}
