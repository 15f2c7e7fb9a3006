package io.queuegate.token;

import java.security.Key;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

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


    /**
     * Tokens already verified, by their exact text: a client sends the same token with every
     * request, and checking the HMAC and parsing the JSON again was the largest single cost of
     * the admitted and waiting paths. Only tokens that passed every check get in; each hit still
     * checks the expiry. Bounded: past this many it starts afresh.
     */
    static final int MAX_VERIFIED = 100_000;

    private final SigningKeys keys;
    private final Duration ttl;
    private final Clock clock;
    private final Duration renewAfter;
    private final JwtParser parser;
    private final Map<String, WaitToken> verified = new ConcurrentHashMap<>();

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
        return builder
                .issuedAt(Date.from(now))
                .expiration(Date.from(now.plus(ttl)))
                .signWith(keys.current(), Jwts.SIG.HS256)
                .compact();
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
        WaitToken known = verified.get(token);
        if (known != null) {
            if (clock.instant().isBefore(known.expiresAt().plus(CLOCK_SKEW))) {
                return known;
            }
            verified.remove(token);
            throw new InvalidTokenException("the token has expired");
        }
        if (!SHAPE.matcher(token).matches()) {
            throw new InvalidTokenException("the token is not a signed QueueGate token");
        }
        try {
            WaitToken checked = toWaitToken(parser.parseSignedClaims(token).getPayload());
            if (verified.size() >= MAX_VERIFIED) {
                verified.clear();
            }
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
        return new WaitToken(productId, userId, anonymous, issuedAt, claims.getExpiration().toInstant(),
                joinedAt == null ? null : Instant.ofEpochSecond(joinedAt.longValue()),
                ticket == null ? null : ticket.longValue());
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
