package io.queuegate.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The seed of a sale's pre-queue draw and its commitment, which is published from the draw's first
 * ticket on while the seed stays secret until the opening: anyone can then check that the seed
 * revealed is the one committed to, so the order was fixed before anyone could see who joined.
 *
 * @param seed the text the draw is keyed with ({@code line.lua}'s {@code permute}); this release
 *             derives 64 lowercase hex digits ({@link DrawSeeds}), the one before drew 256 random bits
 * @param commitment the SHA-256 of the seed's text (its ASCII bytes, not the bytes the hex digits
 *                   stand for), as 64 lowercase hex digits: {@code printf %s "$seed" | sha256sum}
 */
public record DrawSeed(String seed, String commitment) {

    public DrawSeed {
        if (seed == null || seed.isEmpty() || commitment == null || !commitment.matches("[0-9a-f]{64}")) {
            throw new IllegalArgumentException("a draw seed is a non-empty text and its commitment 64 hex digits");
        }
    }

    /** A given seed with its commitment (tests, and a seed read back for a check). */
    public static DrawSeed of(String seed) {
        return new DrawSeed(seed, commitmentOf(seed));
    }

    /** The commitment to {@code seed}: SHA-256 of its ASCII text, lowercase hex. */
    public static String commitmentOf(String seed) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(seed.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("the JDK has no SHA-256", ex);
        }
    }
}
