package io.queuegate.invites;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;

import io.jsonwebtoken.Jwts;
import io.jsonwebtoken.security.Keys;

/**
 * Mints invitations the way a shop signs them, for its own Java code; the runnable gateway's
 * command for operators ({@code io.queuegate.tools.MintInvite}) mints with it too.
 */
public final class InvitationMinter {

    private InvitationMinter() {
    }

    /**
     * One invitation, signed with {@code key}: HS256 for a secret key, RS256 for an RSA private
     * key, ES256 for an EC P-256 private key.
     *
     * @param keyId the {@code kid} the gateway finds the public key by in a JWK set, or {@code null}
     * @param productId the product ({@code pid}), or {@link Invitation#ANY_PRODUCT}
     * @param subject the only shopper who may use it ({@code sub}, their identity as the gateway
     *                sees it), or {@code null} for whoever holds it
     * @param uses how many places it may make per product ({@code uses})
     * @param id its {@code jti}: unique among the shop's invitations, up to 128 visible ASCII characters
     */
    public static String mint(Key key, String keyId, String productId, String subject, long uses, Instant expiresAt,
            String id) {
        var builder = Jwts.builder().id(id).claim("pid", productId).expiration(Date.from(expiresAt));
        if (keyId != null) {
            builder.header().keyId(keyId);
        }
        if (subject != null) {
            builder.subject(subject);
        }
        if (uses != 1) {
            builder.claim("uses", uses);
        }
        if (key instanceof PrivateKey privateKey) {
            return builder.signWith(privateKey, privateKey instanceof ECPrivateKey ? Jwts.SIG.ES256 : Jwts.SIG.RS256)
                    .compact();
        }
        return builder.signWith((javax.crypto.SecretKey) key, Jwts.SIG.HS256).compact();
    }

    /** The HS256 key of a secret, as {@code queuegate.invites.secret} holds it. */
    public static Key secretKey(String secret) {
        return Keys.hmacShaKeyFor(secret.getBytes(StandardCharsets.UTF_8));
    }

    /** An RSA or EC private key in PKCS#8 PEM ({@code BEGIN PRIVATE KEY}). */
    public static PrivateKey privateKey(String pem) {
        String text = pem.strip();
        if (!text.startsWith("-----BEGIN PRIVATE KEY-----") || !text.endsWith("-----END PRIVATE KEY-----")) {
            throw new IllegalArgumentException("the private key must be PKCS#8 PEM ('-----BEGIN PRIVATE KEY-----'); "
                    + "convert one with: openssl pkcs8 -topk8 -nocrypt -in key.pem");
        }
        byte[] der = Base64.getMimeDecoder().decode(text.substring("-----BEGIN PRIVATE KEY-----".length(),
                text.length() - "-----END PRIVATE KEY-----".length()));
        for (String type : new String[] {"RSA", "EC"}) {
            try {
                return KeyFactory.getInstance(type).generatePrivate(new PKCS8EncodedKeySpec(der));
            }
            catch (GeneralSecurityException notThisType) {
                // The other type, or neither.
            }
        }
        throw new IllegalArgumentException("the private key is neither an RSA nor an EC key");
    }
}
