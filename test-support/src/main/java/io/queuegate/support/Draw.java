package io.queuegate.support;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.IntStream;

/**
 * A pre-queue's draw recomputed from what an auditor is shown (the seed, the first ticket and how
 * many were drawn) and checked against the commitment shown before it, written from
 * docs/drops.md's description, not from the Lua or the gateway's Java: the tests compare them.
 */
public final class Draw {

    private static final int ROUNDS = 6;

    private Draw() {
    }

    /**
     * The draw's order of users who took consecutive tickets from the draw's first one.
     *
     * @param inTicketOrder the pre-queued users, in the order of their tickets
     */
    public static <T> List<T> order(String seed, List<T> inTicketOrder) {
        long size = inTicketOrder.size();
        return IntStream.range(0, inTicketOrder.size()).boxed()
                .sorted(Comparator.comparingLong(i -> permute(seed, size, i)))
                .map(inTicketOrder::get)
                .toList();
    }

    /**
     * The permutation of [0, size): a six-round Feistel network on the smallest even number of
     * bits covering size, each round adding the first 12 hex digits of SHA1(seed:round:half),
     * modulo the half's range, to the other half; applied again until the value is below size.
     */
    public static long permute(String seed, long size, long x) {
        int bits = 2;
        while ((1L << bits) < size) {
            bits += 2;
        }
        long half = 1L << (bits / 2);
        do {
            long left = x / half;
            long right = x % half;
            for (int round = 1; round <= ROUNDS; round++) {
                long value = Long.parseLong(sha1(seed + ":" + round + ":" + right).substring(0, 12), 16) % half;
                long next = Math.floorMod(left + value, half);
                left = right;
                right = next;
            }
            x = left * half + right;
        } while (x >= size);
        return x;
    }

    /** What the commitment to {@code seed} must be: the SHA-256 of the seed's text, in hex. */
    public static String commitment(String seed) {
        return hex("SHA-256", seed);
    }

    private static String sha1(String text) {
        return hex("SHA-1", text);
    }

    private static String hex(String algorithm, String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(text.getBytes(StandardCharsets.US_ASCII)));
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** A seed nobody chose (as the release before drew them): 256 random bits as 64 hex digits, with its commitment. */
    public static io.queuegate.store.DrawSeed randomSeed() {
        byte[] bytes = new byte[32];
        new java.security.SecureRandom().nextBytes(bytes);
        return io.queuegate.store.DrawSeed.of(java.util.HexFormat.of().formatHex(bytes));
    }
}
