package io.queuegate.token;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.SecretKey;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.jsonwebtoken.Claims;
import io.jsonwebtoken.ExpiredJwtException;
import io.jsonwebtoken.Header;
import io.jsonwebtoken.JwsHeader;
import io.jsonwebtoken.JwtException;
import io.jsonwebtoken.JwtParser;
import io.jsonwebtoken.Jwts;
import io.jsonwebtoken.LocatorAdapter;
import io.jsonwebtoken.RequiredTypeException;
import io.jsonwebtoken.security.SignatureException;

/**
 * Signs and checks wait tokens (HS256 JWTs with a {@code kid}). Every rejection is an
 * {@link InvalidTokenException} whose message says what was wrong without revealing keys.
 */
public final class WaitTokenCodec {

    /** The {@code typ} claim of a wait token; other QueueGate tokens may come later. */
    public static final String TYPE = "wait";

    /** Longer strings are refused before parsing; ours are about 250 characters. */
    public static final int MAX_TOKEN_LENGTH = 2048;

    /**
     * Three non-empty parts of the base64url alphabet only. The JWT decoder skips characters
     * outside the alphabet, so without this one token could be written many ways
     * ({@code token + "="} or {@code token + "!"} would still pass).
     */
    private static final Pattern SHAPE = Pattern.compile("[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+");

    private static final Duration CLOCK_SKEW = Duration.ofSeconds(30);

    /** An epoch as {@code RedisEpoch} makes it: 16 hex digits. */
    private static final Pattern EPOCH_CLAIM = Pattern.compile("[0-9a-f]{16}");

    /** 72 bits of the network's HMAC: no collision can be aimed at, and the claim stays short. */
    private static final int NETWORK_CLAIM_BYTES = 9;
    private static final Pattern NETWORK_CLAIM = Pattern.compile("[A-Za-z0-9_-]{12}");


    /**
     * Tokens already verified, by their exact text: a client sends the same token with every
     * request, and checking the HMAC and parsing the JSON again was the largest single cost of
     * the admitted and waiting paths. Only tokens that passed every check get in; each hit still
     * checks the expiry. Bounded: past this many, Caffeine forgets the tokens asked about least
     * (rarely, and not lately), one at a time, so a flood of new tokens never costs the shoppers
     * who keep polling their HMAC-free answer, as a memory that started afresh did.
     */
    static final int MAX_VERIFIED = 100_000;

    private final SigningKeys keys;
    private final Duration ttl;
    private final Clock clock;
    private final Duration renewAfter;
    private final JwtParser parser;
    private final Cache<String, WaitToken> verified = Caffeine.newBuilder()
            .maximumSize(MAX_VERIFIED)
            // Evictions on the calling thread, as part of the call: nothing else to schedule.
            .executor(Runnable::run)
            .build();

    public WaitTokenCodec(SigningKeys keys, Duration ttl, Clock clock) {
        this.keys = keys;
        this.ttl = ttl;
        this.clock = clock;
        this.renewAfter = ttl.dividedBy(2);
        this.parser = Jwts.parser()
                .keyLocator(new KeyById(keys))
                .clock(() -> Date.from(clock.instant()))
                .clockSkewSeconds(CLOCK_SKEW.toSeconds())
                .build();
    }

    /** A fresh token for this user and product, valid for the configured ttl. */
    public String issue(String productId, String userId, boolean anonymous) {
        return issue(productId, userId, anonymous, null, null);
    }

    /**
     * A fresh token for a user who waits in line since {@code joinedAt} (kept in {@code jat}, in
     * epoch seconds, so the wait can be measured when they are admitted) holding {@code ticket}
     * ({@code tkt}); both {@code null} for a user who does not wait.
     */
    public String issue(String productId, String userId, boolean anonymous, Instant joinedAt, Long ticket) {
        return issue(productId, userId, anonymous, joinedAt, ticket, null);
    }

    /**
     * Like {@link #issue(String, String, boolean, Instant, Long)}, for a token bound to a network.
     *
     * @param network the {@code net} claim ({@link #networkClaim}), or {@code null} for a token
     *                bound to none
     */
    public String issue(String productId, String userId, boolean anonymous, Instant joinedAt, Long ticket,
            String network) {
        return issue(productId, userId, anonymous, joinedAt, ticket, network, null, null);
    }

    /**
     * Like {@link #issue(String, String, boolean, Instant, Long, String)}, for a token that names
     * the epoch of the Redis data it was signed in and, for an admitted shopper, when their session
     * ends: what it proves if Redis forgets ({@code ep}, {@code sx}; the release before this one
     * ignores both).
     *
     * @param epoch the epoch's id, or {@code null}
     * @param sessionEnd the session's end, or {@code null} for a token of someone not admitted
     */
    public String issue(String productId, String userId, boolean anonymous, Instant joinedAt, Long ticket,
            String network, String epoch, Instant sessionEnd) {
        Instant now = clock.instant();
        var builder = Jwts.builder()
                .header().keyId(keys.currentId()).and()
                .claim("typ", TYPE)
                .claim("pid", productId)
                .claim("uid", userId)
                .claim("anon", anonymous);
        if (joinedAt != null) {
            builder.claim("jat", joinedAt.getEpochSecond());
        }
        if (ticket != null) {
            builder.claim("tkt", ticket);
        }
        if (network != null) {
            builder.claim("net", network);
        }
        if (epoch != null) {
            builder.claim("ep", epoch);
        }
        if (sessionEnd != null) {
            builder.claim("sx", sessionEnd.toEpochMilli());
        }
        return builder
                .issuedAt(Date.from(now))
                .expiration(Date.from(now.plus(ttl)))
                .signWith(keys.current(), Jwts.SIG.HS256)
                .compact();
    }

    /**
     * The {@code net} claim that binds a token to a network ({@code 203.0.113.0/24}): an
     * HMAC-SHA256 of it under the current signing key, cut to 72 bits. A token (which its
     * holder, and anyone it is passed to, can read) so never shows the network; and without the
     * key nobody can tell which network a claim names by hashing all 2^24 of them.
     */
    public String networkClaim(String network) {
        return networkClaim(keys.current(), network);
    }

    /**
     * Whether the token is bound to this network, under the current signing key or a previous
     * one (a token signed before a rotation keeps its binding).
     */
    public boolean boundTo(WaitToken token, String network) {
        if (token.network() == null) {
            return false;
        }
        byte[] claim = token.network().getBytes(StandardCharsets.US_ASCII);
        for (SecretKey key : keys.all()) {
            if (MessageDigest.isEqual(claim, networkClaim(key, network).getBytes(StandardCharsets.US_ASCII))) {
                return true;
            }
        }
        return false;
    }

    private static String networkClaim(SecretKey key, String network) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            byte[] digest = mac.doFinal(("net:" + network).getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(digest, NETWORK_CLAIM_BYTES));
        }
        catch (GeneralSecurityException ex) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", ex);
        }
    }

    /**
     * Whether a token should be signed anew with the next answer from Redis: once half its
     * lifetime has passed, so a long wait never ends in an expired token, while the answers in
     * between hand back the same token without signing. Its holder's request then goes to Redis,
     * which also keeps their place's entries alive (they outlive a token's whole lifetime).
     */
    public boolean dueForRenewal(WaitToken token) {
        return !clock.instant().isBefore(token.issuedAt().plus(renewAfter));
    }

    /** The clock tokens are stamped with, so waits are measured against the same time. */
    public Instant now() {
        return clock.instant();
    }

    /** Checks signature, algorithm, key id, lifetime and claims; never returns an untrusted token. */
    public WaitToken verify(String token) {
        if (token == null || token.isBlank()) {
            throw new InvalidTokenException("the token is empty");
        }
        if (token.length() > MAX_TOKEN_LENGTH) {
            throw new InvalidTokenException("the token is longer than " + MAX_TOKEN_LENGTH + " characters");
        }
        WaitToken known = verified.getIfPresent(token);
        if (known != null) {
            if (clock.instant().isBefore(known.expiresAt().plus(CLOCK_SKEW))) {
                return known;
            }
            verified.invalidate(token);
            throw new InvalidTokenException("the token has expired");
        }
        if (!SHAPE.matcher(token).matches()) {
            throw new InvalidTokenException("the token is not a signed QueueGate token");
        }
        try {
            WaitToken checked = toWaitToken(parser.parseSignedClaims(token).getPayload());
            verified.put(token, checked);
            return checked;
        }
        catch (ExpiredJwtException ex) {
            throw new InvalidTokenException("the token has expired");
        }
        catch (SignatureException ex) {
            throw new InvalidTokenException("the token's signature does not match");
        }
        catch (InvalidTokenException ex) {
            throw ex;
        }
        catch (RequiredTypeException ex) {
            throw new InvalidTokenException("a claim of the token has the wrong type");
        }
        catch (JwtException | IllegalArgumentException ex) {
            throw new InvalidTokenException("the token is not a signed QueueGate token");
        }
    }

    /** Whether {@code token} is among the tokens verified before, for tests of the bound. */
    boolean remembers(String token) {
        return verified.policy().getIfPresentQuietly(token) != null;
    }

    long remembered() {
        verified.cleanUp();
        return verified.estimatedSize();
    }

    private WaitToken toWaitToken(Claims claims) {
        if (!TYPE.equals(claims.get("typ", String.class))) {
            throw new InvalidTokenException("the token is not a wait token");
        }
        String productId = claims.get("pid", String.class);
        String userId = claims.get("uid", String.class);
        Boolean anonymous = claims.get("anon", Boolean.class);
        if (productId == null || userId == null || anonymous == null
                || claims.getIssuedAt() == null || claims.getExpiration() == null) {
            throw new InvalidTokenException("the token lacks a required claim");
        }
        Instant issuedAt = claims.getIssuedAt().toInstant();
        if (issuedAt.isAfter(clock.instant().plus(CLOCK_SKEW))) {
            throw new InvalidTokenException("the token was issued in the future");
        }
        Number joinedAt = number(claims, "jat", "join time");
        Number ticket = number(claims, "tkt", "ticket");
        if (ticket != null && (joinedAt == null || ticket.longValue() == 0)) {
            throw new InvalidTokenException("the token's ticket is not one a waiting user holds");
        }
        String network;
        try {
            network = claims.get("net", String.class);
        }
        catch (JwtException | IllegalArgumentException ex) {
            throw new InvalidTokenException("the token's network claim is not a string");
        }
        if (network != null && !NETWORK_CLAIM.matcher(network).matches()) {
            throw new InvalidTokenException("the token's network claim is not one this gateway makes");
        }
        String epoch;
        try {
            epoch = claims.get("ep", String.class);
        }
        catch (JwtException | IllegalArgumentException ex) {
            throw new InvalidTokenException("the token's epoch claim is not a string");
        }
        if (epoch != null && !EPOCH_CLAIM.matcher(epoch).matches()) {
            throw new InvalidTokenException("the token's epoch claim is not one this gateway makes");
        }
        Number sessionEnd = number(claims, "sx", "session end");
        if (sessionEnd != null && (ticket != null || joinedAt != null)) {
            throw new InvalidTokenException("the token names a session and a place in line at once");
        }
        return new WaitToken(productId, userId, anonymous, issuedAt, claims.getExpiration().toInstant(),
                joinedAt == null ? null : Instant.ofEpochSecond(joinedAt.longValue()),
                ticket == null ? null : ticket.longValue(), network, epoch,
                sessionEnd == null ? null : Instant.ofEpochMilli(sessionEnd.longValue()));
    }

    private static Number number(Claims claims, String claim, String what) {
        try {
            Number value = claims.get(claim, Number.class);
            if (value instanceof Double || value instanceof Float) {
                throw new InvalidTokenException("the token's " + what + " is not a whole number");
            }
            return value;
        }
        catch (JwtException | IllegalArgumentException ex) {
            throw new InvalidTokenException("the token's " + what + " is not a number");
        }
    }

    /** Finds the key by {@code kid}; only HS256 is accepted, so no algorithm can be swapped in. */
    private static final class KeyById extends LocatorAdapter<Key> {

        private final SigningKeys keys;

        KeyById(SigningKeys keys) {
            this.keys = keys;
        }

        @Override
        protected Key locate(JwsHeader header) {
            if (!"HS256".equals(header.getAlgorithm())) {
                throw new InvalidTokenException("the token must be signed with HS256");
            }
            Key key = keys.find(header.getKeyId());
            if (key == null) {
                throw new InvalidTokenException("the token's key id is unknown");
            }
            return key;
        }

        @Override
        protected Key doLocate(Header header) {
            throw new InvalidTokenException("the token is not signed");
        }
    }
}
