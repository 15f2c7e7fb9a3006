package io.queuegate.challenge;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;

/**
 * The price a browser without JavaScript pays for a new place instead of the proof of work: a wait
 * the server times and signs. A ticket names its product, the client's network, when it is ready and
 * when it expires, signed with HMAC-SHA256; the waiting page refreshes itself when it is ready and
 * joins with it. Priced when issued, like the proof of work ({@link JoinGate}: the base wait times the
 * network's factor of the hour). Each network holds one open ticket per product on this instance (a
 * reload gets the same one, so asking again never starts the wait afresh, and a bot cannot hold many at
 * once from one network), and each ticket buys one place: its mark is taken in Redis by the join, as a
 * proof-of-work solution's is.
 */
public final class WaitTickets {

    /** The cookie a ticket travels in: the page's refresh brings it back without any script. */
    public static final String COOKIE = io.queuegate.config.QueueHeaders.WAIT_COOKIE;

    /** Longer values are not read. */
    static final int MAX_LENGTH = 512;

    /** Open tickets kept per instance: past it, the least recently issued go. */
    static final int MAX_OPEN = 100_000;

    private static final String VERSION = "1";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] key;
    private final List<byte[]> previousKeys;
    private final Duration ttl;
    private final Clock clock;
    private final Cache<Open, Ticket> open;

    /**
     * @param key the HMAC key that signs new tickets
     * @param previousKeys older keys whose tickets are still accepted (a rotation)
     * @param ttl how long a ticket may be used once it is ready
     */
    public WaitTickets(String key, List<String> previousKeys, Duration ttl, Clock clock) {
        this.key = key.getBytes(StandardCharsets.UTF_8);
        this.previousKeys = previousKeys.stream().map(old -> old.getBytes(StandardCharsets.UTF_8)).toList();
        this.ttl = ttl;
        this.clock = clock;
        this.open = Caffeine.newBuilder().maximumSize(MAX_OPEN).expireAfter(new Expiry<Open, Ticket>() {
            @Override
            public long expireAfterCreate(Open at, Ticket ticket, long now) {
                return Math.max(0, Duration.between(clock.instant(), ticket.expiresAt()).toNanos());
            }

            @Override
            public long expireAfterUpdate(Open at, Ticket ticket, long now, long current) {
                return expireAfterCreate(at, ticket, now);
            }

            @Override
            public long expireAfterRead(Open at, Ticket ticket, long now, long current) {
                return current;
            }
        }).executor(Runnable::run).build();
    }

    /** The ticket key derived from the challenge key: a key of its own, never the challenge's itself. */
    public static String derivedKey(String challengeKey) {
        return HexFormat.of().formatHex(hmac(challengeKey.getBytes(StandardCharsets.UTF_8),
                "queuegate wait ticket"));
    }

    /**
     * A signed wait ticket, as its cookie carries it.
     *
     * @param value the ticket itself
     * @param readyAt when it buys a place
     * @param expiresAt when it no longer does
     * @param secondsLeft how long until it is ready as it was handed out, in whole seconds
     *                    (rounded up); 0 once it is
     */
    public record Ticket(String value, Instant readyAt, Instant expiresAt, long secondsLeft) {

        Ticket handedOutAt(Instant now) {
            long millis = Duration.between(now, readyAt).toMillis();
            return new Ticket(value, readyAt, expiresAt, millis <= 0 ? 0 : (millis + 999) / 1000);
        }

        /** How long its cookie must live: until it expires. */
        public Duration lifetime() {
            return Duration.between(readyAt, expiresAt).plusSeconds(secondsLeft);
        }
    }

    private record Open(String network, String productId) {
    }

    /**
     * The network's open ticket for the product, or a new one ready after {@code wait}: one at a
     * time, so asking again waits for the same one.
     *
     * @param difficulty the proof-of-work difficulty the wait stands for, signed in the ticket
     */
    public Ticket open(String productId, String network, Duration wait, int difficulty) {
        Instant now = clock.instant();
        return open.asMap().compute(new Open(network, productId), (at, held) -> held != null
                && held.expiresAt().isAfter(now) ? held : issue(productId, network, wait, difficulty)).handedOutAt(now);
    }

    /** The network's ticket for the product bought a place (on this instance, or another said so): the next one waits afresh. */
    public void spent(String productId, String network) {
        open.invalidate(new Open(network, productId));
    }

    /**
     * What a ticket proves for this product and network: a solution to take once (its mark), a
     * ticket not ready yet, or nothing.
     */
    public Verdict check(String productId, String network, String value) {
        if (value == null || value.isEmpty() || value.length() > MAX_LENGTH) {
            return new Verdict.Refused("the wait ticket is empty or too long");
        }
        int dot = value.indexOf('.');
        if (dot < 0) {
            return new Verdict.Refused("the wait ticket is malformed");
        }
        byte[] payload;
        byte[] signature;
        try {
            payload = Base64.getUrlDecoder().decode(value.substring(0, dot));
            signature = Base64.getUrlDecoder().decode(value.substring(dot + 1));
        }
        catch (IllegalArgumentException ex) {
            return new Verdict.Refused("the wait ticket is malformed");
        }
        if (!signedByAKeyOfOurs(payload, signature)) {
            return new Verdict.Refused("the wait ticket is not one this gateway signed");
        }
        String[] fields = new String(payload, StandardCharsets.UTF_8).split("\\|", -1);
        if (fields.length != 7 || !VERSION.equals(fields[0])) {
            return new Verdict.Refused("the wait ticket is malformed");
        }
        if (!productId.equals(fields[1])) {
            return new Verdict.Refused("the wait ticket was issued for another product");
        }
        if (!network.equals(fields[2])) {
            return new Verdict.Refused("the wait ticket was issued to another network");
        }
        Instant now = clock.instant();
        Instant readyAt = Instant.ofEpochMilli(Long.parseLong(fields[3]));
        Instant expiresAt = Instant.ofEpochMilli(Long.parseLong(fields[4]));
        if (!now.isBefore(expiresAt)) {
            return new Verdict.Refused("the wait ticket has expired");
        }
        if (now.isBefore(readyAt)) {
            return new Verdict.Early(readyAt);
        }
        // Hex, as a solution's mark is; hashed under a label of its own, so it names no challenge.
        String mark = HexFormat.of().formatHex(sha256("wait ticket " + fields[6]), 0, 16);
        return new Verdict.Solved(mark, Duration.between(now, expiresAt).plus(ProofOfWork.CLOCK_SKEW),
                Integer.parseInt(fields[5]));
    }

    private Ticket issue(String productId, String network, Duration wait, int difficulty) {
        Instant now = clock.instant();
        Instant readyAt = now.plus(wait);
        Instant expiresAt = readyAt.plus(ttl);
        byte[] nonce = new byte[16];
        RANDOM.nextBytes(nonce);
        String payload = String.join("|", VERSION, productId, network, Long.toString(readyAt.toEpochMilli()),
                Long.toString(expiresAt.toEpochMilli()), Integer.toString(difficulty),
                Base64.getUrlEncoder().withoutPadding().encodeToString(nonce));
        byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
        String value = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes) + "."
                + Base64.getUrlEncoder().withoutPadding().encodeToString(hmac(key, bytes));
        return new Ticket(value, readyAt, expiresAt, 0);
    }

    private boolean signedByAKeyOfOurs(byte[] payload, byte[] signature) {
        List<byte[]> keys = new ArrayList<>();
        keys.add(key);
        keys.addAll(previousKeys);
        for (byte[] candidate : keys) {
            if (MessageDigest.isEqual(hmac(candidate, payload), signature)) {
                return true;
            }
        }
        return false;
    }

    private static byte[] hmac(byte[] key, String text) {
        return hmac(key, text.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        }
        catch (GeneralSecurityException ex) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", ex);
        }
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        }
        catch (GeneralSecurityException ex) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", ex);
        }
    }
}
