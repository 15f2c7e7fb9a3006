package io.queuegate.token;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.SecretKey;

import io.jsonwebtoken.Claims;
import io.jsonwebtoken.JwtException;

/**
 * A wait token's claims, as {@link WaitTokenCodec} reads them once the signature holds: every claim
 * checked for the shape this gateway gives it, and the network claim (an HMAC of the network under
 * a signing key) made and compared.
 */
final class WaitTokenClaims {

    /** An epoch as {@code RedisEpoch} makes it: 16 hex digits. */
    private static final Pattern EPOCH_CLAIM = Pattern.compile("[0-9a-f]{16}");

    /** 72 bits of the network's HMAC: no collision can be aimed at, and the claim stays short. */
    private static final int NETWORK_CLAIM_BYTES = 9;
    private static final Pattern NETWORK_CLAIM = Pattern.compile("[A-Za-z0-9_-]{12}");

    private WaitTokenClaims() {
    }

    /** Whether {@code claim} names {@code network} under the current signing key or a previous one. */
    static boolean boundTo(String claim, SigningKeys keys, String network) {
        byte[] bytes = claim.getBytes(StandardCharsets.US_ASCII);
        for (SecretKey key : keys.all()) {
            if (MessageDigest.isEqual(bytes, network(key, network).getBytes(StandardCharsets.US_ASCII))) {
                return true;
            }
        }
        return false;
    }

    static String network(SecretKey key, String network) {
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

    /** The token's claims, checked; {@code now} is the gateway's time, for a token issued in the future. */
    static WaitToken read(Claims claims, Instant now) {
        if (!WaitTokenCodec.TYPE.equals(claims.get("typ", String.class))) {
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
        if (issuedAt.isAfter(now.plus(WaitTokenCodec.CLOCK_SKEW))) {
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
}
