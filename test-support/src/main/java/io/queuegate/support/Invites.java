package io.queuegate.support;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import javax.crypto.SecretKey;

import io.jsonwebtoken.Jwts;
import io.queuegate.invites.InvitationMinter;

/** Invitations good and bad, made as a shop (or someone pretending to be one) would make them. */
public final class Invites {

    /** The {@code queuegate.invites.secret} of the tests' gateways. */
    public static final String SECRET = "invite-secret-of-the-tests-long-enough-for-hs256-0123456789";

    private Invites() {
    }

    /** A valid invitation for one place in {@code productId}, for whoever holds it, for an hour. */
    public static String forProduct(String productId) {
        return mint(productId, null, 1);
    }

    /** A valid invitation, for an hour, with a random {@code jti}. */
    public static String mint(String productId, String user, long uses) {
        return mint(SECRET, productId, user, uses, Instant.now().plus(Duration.ofHours(1)));
    }

    public static String mint(String secret, String productId, String user, long uses, Instant expiresAt) {
        return InvitationMinter.mint(InvitationMinter.secretKey(secret), null, productId, user, uses, expiresAt,
                UUID.randomUUID().toString());
    }

    /** Any claims, HS256 with the tests' secret: for claims a shop's code should never make. */
    public static String withClaims(Map<String, Object> claims) {
        return Jwts.builder().claims(claims).signWith((SecretKey) InvitationMinter.secretKey(SECRET), Jwts.SIG.HS256)
                .compact();
    }

    /** A valid invitation whose payload was edited to another product, keeping the signature. */
    public static String tampered(String invitation, String otherProductId) {
        String[] parts = invitation.split("\\.");
        String payload = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
        String edited = payload.replaceFirst("\"pid\":\"[^\"]*\"", "\"pid\":\"" + otherProductId + "\"");
        return parts[0] + "." + Base64.getUrlEncoder().withoutPadding()
                .encodeToString(edited.getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
    }

    /** The same claims with {@code alg: none} and no signature. */
    public static String unsigned(String productId) {
        String header = Base64.getUrlEncoder().withoutPadding().encodeToString("{\"alg\":\"none\"}"
                .getBytes(StandardCharsets.UTF_8));
        long exp = Instant.now().plus(Duration.ofHours(1)).getEpochSecond();
        String payload = Base64.getUrlEncoder().withoutPadding().encodeToString(("{\"jti\":\"" + UUID.randomUUID()
                + "\",\"pid\":\"" + productId + "\",\"exp\":" + exp + "}").getBytes(StandardCharsets.UTF_8));
        return header + "." + payload + ".";
    }

    /** Claims that make a good invitation, to edit for a bad one. */
    public static Map<String, Object> claims(String productId) {
        return new LinkedHashMap<>(Map.of("jti", UUID.randomUUID().toString(), "pid", productId,
                "exp", Instant.now().plus(Duration.ofHours(1)).getEpochSecond()));
    }
}
