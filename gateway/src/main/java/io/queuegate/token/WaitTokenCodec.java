package io.queuegate.token;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.regex.Pattern;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.jsonwebtoken.ExpiredJwtException;
import io.jsonwebtoken.JwtException;
import io.jsonwebtoken.JwtParser;
import io.jsonwebtoken.Jwts;
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

    static final Duration CLOCK_SKEW = Duration.ofSeconds(30);

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
        return WaitTokenClaims.network(keys.current(), network);
    }

    /**
     * Whether the token is bound to this network, under the current signing key or a previous
     * one (a token signed before a rotation keeps its binding).
     */
    public boolean boundTo(WaitToken token, String network) {
        if (token.network() == null) {
            return false;
        }
        return WaitTokenClaims.boundTo(token.network(), keys, network);
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
            WaitToken checked = WaitTokenClaims.read(parser.parseSignedClaims(token).getPayload(), clock.instant());
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
}
