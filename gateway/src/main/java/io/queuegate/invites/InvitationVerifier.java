package io.queuegate.invites;

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
import io.jsonwebtoken.PrematureJwtException;
import io.jsonwebtoken.security.SecurityException;

/**
 * Checks the invitations shoppers bring: the signature with the configured
 * {@link InvitationKeys}, the expiry, the claims, the product and the shopper. Pure computation,
 * no Redis: how often an invitation was used is counted by the join itself.
 */
public final class InvitationVerifier {

    /** Longer strings are refused before parsing; an RS256 invitation is about 500 characters. */
    public static final int MAX_LENGTH = 4096;

    /** The longest {@code jti}: it becomes part of a Redis key. */
    public static final int MAX_ID_LENGTH = 128;

    /** The most places one invitation may make per product. */
    public static final long MAX_USES = 1_000_000;

    /** Instances' clocks differ a little; an expiry is judged with this much slack (like wait tokens). */
    static final Duration CLOCK_SKEW = Duration.ofSeconds(30);

    /** Invitations already checked, by their exact text; bounded: past this many it starts afresh. */
    static final int MAX_VERIFIED = 10_000;

    /**
     * Three non-empty parts of the base64url alphabet only: the decoder skips other characters,
     * so without this one invitation could be written many ways.
     */
    private static final Pattern SHAPE = Pattern.compile("[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+");

    private final boolean keys;
    private final Clock clock;
    private final JwtParser parser;
    // Bounded: past MAX_VERIFIED the least used go first, never every invitation at once.
    private final Map<String, Invitation> verified = com.github.benmanes.caffeine.cache.Caffeine.newBuilder()
            .maximumSize(MAX_VERIFIED).<String, Invitation>build().asMap();

    public InvitationVerifier(InvitationKeys keys, Clock clock) {
        this.keys = !keys.isEmpty();
        this.clock = clock;
        this.parser = Jwts.parser()
                .keyLocator(new KeyByAlgorithm(keys))
                .clock(() -> Date.from(clock.instant()))
                .clockSkewSeconds(CLOCK_SKEW.toSeconds())
                .build();
    }

    /** Whether any key is configured: without one, no invitation is valid. */
    public boolean hasKeys() {
        return keys;
    }

    /**
     * What {@code compact} (the request's invitation, or {@code null}) is worth for a join of
     * {@code productId} by the shopper with {@code identity} (as the request proved it, or
     * {@code null} when anonymous).
     */
    public InvitationCheck check(String compact, String productId, String identity) {
        if (compact == null || compact.isBlank()) {
            return InvitationCheck.ABSENT;
        }
        Invitation invitation;
        try {
            invitation = verify(compact.strip());
        }
        catch (IllegalArgumentException refused) {
            return new InvitationCheck.Invalid(refused.getMessage());
        }
        if (!Invitation.ANY_PRODUCT.equals(invitation.productId()) && !invitation.productId().equals(productId)) {
            return new InvitationCheck.Invalid("the invitation is for another product");
        }
        if (invitation.subject() != null && !invitation.subject().equals(identity)) {
            return new InvitationCheck.Invalid("the invitation is for another shopper");
        }
        return new InvitationCheck.Valid(invitation);
    }

    private Invitation verify(String compact) {
        if (compact.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("the invitation is longer than " + MAX_LENGTH + " characters");
        }
        Invitation known = verified.get(compact);
        if (known != null) {
            if (clock.instant().isBefore(known.expiresAt().plus(CLOCK_SKEW))) {
                return known;
            }
            verified.remove(compact);
            throw new IllegalArgumentException("the invitation has expired");
        }
        if (!SHAPE.matcher(compact).matches()) {
            throw new IllegalArgumentException("the invitation is not a signed JWT");
        }
        Claims claims;
        try {
            claims = parser.parseSignedClaims(compact).getPayload();
        }
        catch (ExpiredJwtException ex) {
            throw new IllegalArgumentException("the invitation has expired");
        }
        catch (PrematureJwtException ex) {
            throw new IllegalArgumentException("the invitation is not valid yet (nbf)");
        }
        catch (SecurityException ex) {
            throw new IllegalArgumentException("the invitation's signature does not match");
        }
        catch (Refused ex) {
            throw new IllegalArgumentException(ex.getMessage());
        }
        catch (JwtException | IllegalArgumentException | ClassCastException ex) {
            throw new IllegalArgumentException("the invitation is not a signed JWT");
        }
        Invitation checked = invitation(claims);
        verified.put(compact, checked);
        return checked;
    }

    private static Invitation invitation(Claims claims) {
        Object id = claims.get("jti");
        Object productId = claims.get("pid");
        Object subject = claims.get("sub");
        Date expiresAt = claims.getExpiration();
        if (!(id instanceof String) || !(productId instanceof String) || expiresAt == null) {
            throw new IllegalArgumentException("the invitation lacks a required claim: jti, pid (text) and exp");
        }
        String jti = (String) id;
        if (jti.isEmpty() || jti.length() > MAX_ID_LENGTH || jti.chars().anyMatch(c -> c <= ' ' || c > '~')) {
            throw new IllegalArgumentException("the invitation's jti must be 1 to " + MAX_ID_LENGTH
                    + " visible ASCII characters");
        }
        if (subject != null && !(subject instanceof String)) {
            throw new IllegalArgumentException("the invitation's sub is not text");
        }
        Object uses = claims.get("uses");
        long count = 1;
        if (uses != null) {
            if (!(uses instanceof Integer || uses instanceof Long) || ((Number) uses).longValue() < 1
                    || ((Number) uses).longValue() > MAX_USES) {
                throw new IllegalArgumentException("the invitation's uses must be a whole number from 1 to " + MAX_USES);
            }
            count = ((Number) uses).longValue();
        }
        return new Invitation(jti, (String) productId, (String) subject, count, expiresAt.toInstant());
    }

    /** A refusal the key locator words itself. */
    private static final class Refused extends JwtException {

        Refused(String message) {
            super(message);
        }
    }

    /** Finds the key by the invitation's algorithm and key id; only HS256, RS256 and ES256 pass. */
    private static final class KeyByAlgorithm extends LocatorAdapter<Key> {

        private final InvitationKeys keys;

        KeyByAlgorithm(InvitationKeys keys) {
            this.keys = keys;
        }

        @Override
        protected Key locate(JwsHeader header) {
            try {
                return keys.find(header.getAlgorithm(), header.getKeyId());
            }
            catch (IllegalArgumentException ex) {
                throw new Refused(ex.getMessage());
            }
        }

        @Override
        protected Key doLocate(Header header) {
            throw new Refused("the invitation is not signed");
        }
    }
}
