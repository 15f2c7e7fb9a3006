package io.queuegate.line;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A sale's draw, worked out in Java exactly as {@code line.lua}'s {@code permute} does it in Redis:
 * a six-round balanced Feistel network on the smallest even number of bits covering the draw's
 * size, each round adding the first 12 hex digits of SHA1(seed:round:half) to the other half,
 * applied again until the value lands inside (cycle walking). An instance needs it to place a
 * drawn ticket in line without asking Redis; the seed is only known once the draw is closed.
 */
final class DrawOrder {

    private static final int ROUNDS = 6;

    private static final ThreadLocal<MessageDigest> SHA1 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-1");
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("the JDK has no SHA-1", ex);
        }
    });

    private DrawOrder() {
    }

    /** Where the draw put {@code x} of [0, size). */
    static long permute(String seed, long size, long x) {
        int bits = 2;
        while ((1L << bits) < size) {
            bits += 2;
        }
        long half = 1L << (bits / 2);
        do {
            long left = x / half;
            long right = x % half;
            for (int round = 1; round <= ROUNDS; round++) {
                long next = Math.floorMod(left + roundValue(seed, round, right, half), half);
                left = right;
                right = next;
            }
            x = left * half + right;
        } while (x >= size);
        return x;
    }

    private static long roundValue(String seed, int round, long value, long half) {
        MessageDigest sha1 = SHA1.get();
        byte[] digest = sha1.digest((seed + ':' + round + ':' + value).getBytes(StandardCharsets.UTF_8));
        // The first 12 hex digits are the first 6 bytes.
        long first = 0;
        for (int i = 0; i < 6; i++) {
            first = (first << 8) | (digest[i] & 0xff);
        }
        return first % half;
    }
}
