package io.queuegate.invites;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.crypto.SecretKey;

import io.jsonwebtoken.security.Jwk;
import io.jsonwebtoken.security.JwkSet;
import io.jsonwebtoken.security.Jwks;
import io.jsonwebtoken.security.Keys;
import io.jsonwebtoken.security.PrivateJwk;
import io.jsonwebtoken.security.PublicJwk;
import io.jsonwebtoken.security.SecretJwk;

/**
 * The keys invitations are checked with: an HS256 secret the gateway shares with the shop, and
 * public keys (one PEM key, a JWK set, or both) whose private halves only the shop holds, for
 * RS256 and ES256. Each algorithm is checked only with a key of its own kind, so no invitation
 * can choose how it is checked.
 */
public final class InvitationKeys {

    /** HS256 needs a key at least as long as its 256-bit hash. */
    public static final int MIN_SECRET_BYTES = 32;

    static final String HS256 = "HS256";
    static final String RS256 = "RS256";
    static final String ES256 = "ES256";

    private final SecretKey secret;
    private final PublicKey publicKey;
    private final List<Named> jwks;

    private InvitationKeys(SecretKey secret, PublicKey publicKey, List<Named> jwks) {
        this.secret = secret;
        this.publicKey = publicKey;
        this.jwks = List.copyOf(jwks);
    }

    /**
     * The configured keys; each may be {@code null}. Fails with a message naming the property when
     * one is not a usable key.
     *
     * @param secret the HS256 secret, at least {@value #MIN_SECRET_BYTES} bytes
     * @param publicKeyPem an RSA or EC (P-256) public key, PEM ({@code BEGIN PUBLIC KEY})
     * @param jwkSetJson a JWK set of RSA and EC (P-256) public keys, as JSON
     */
    public static InvitationKeys of(String secret, String publicKeyPem, String jwkSetJson) {
        SecretKey hmac = null;
        if (secret != null && !secret.isEmpty()) {
            byte[] bytes = secret.getBytes(StandardCharsets.UTF_8);
            if (bytes.length < MIN_SECRET_BYTES) {
                throw new IllegalArgumentException("queuegate.invites.secret must be at least " + MIN_SECRET_BYTES
                        + " bytes for HS256, was " + bytes.length);
            }
            hmac = Keys.hmacShaKeyFor(bytes);
        }
        PublicKey pem = publicKeyPem == null || publicKeyPem.isBlank() ? null : publicKey(publicKeyPem);
        List<Named> set = jwkSetJson == null || jwkSetJson.isBlank() ? List.of() : jwkSet(jwkSetJson);
        return new InvitationKeys(hmac, pem, set);
    }

    /** Whether any key is configured: without one, no invitation can be valid. */
    public boolean isEmpty() {
        return secret == null && publicKey == null && jwks.isEmpty();
    }

    /**
     * The key an invitation signed with {@code algorithm}, naming {@code keyId} (or {@code null}),
     * is checked with.
     *
     * @throws IllegalArgumentException saying why there is none
     */
    Key find(String algorithm, String keyId) {
        if (HS256.equals(algorithm)) {
            if (secret == null) {
                throw new IllegalArgumentException("the invitation is signed with HS256, but no secret is configured");
            }
            return secret;
        }
        if (!RS256.equals(algorithm) && !ES256.equals(algorithm)) {
            throw new IllegalArgumentException("the invitation must be signed with HS256, RS256 or ES256");
        }
        Key named = null;
        int unnamed = 0;
        Key onlyUnnamed = null;
        for (Named jwk : jwks) {
            if (!fits(jwk.key(), algorithm) || (jwk.algorithm() != null && !jwk.algorithm().equals(algorithm))) {
                continue;
            }
            if (keyId != null && keyId.equals(jwk.id())) {
                named = jwk.key();
            }
            if (jwk.id() == null) {
                unnamed++;
                onlyUnnamed = jwk.key();
            }
        }
        if (named != null) {
            return named;
        }
        if (publicKey != null && fits(publicKey, algorithm)) {
            return publicKey;
        }
        if (keyId == null && unnamed == 1) {
            return onlyUnnamed;
        }
        throw new IllegalArgumentException("no configured key checks an invitation signed with " + algorithm
                + (keyId == null ? "" : " by key id '" + keyId + "'"));
    }

    private static boolean fits(Key key, String algorithm) {
        return RS256.equals(algorithm) ? key instanceof RSAPublicKey : key instanceof ECPublicKey;
    }

    private static PublicKey publicKey(String pem) {
        String text = pem.strip();
        if (text.contains("BEGIN RSA PUBLIC KEY")) {
            throw new IllegalArgumentException("queuegate.invites.public-key is a PKCS#1 RSA key; give the "
                    + "'BEGIN PUBLIC KEY' form: openssl rsa -RSAPublicKey_in -in key.pem -pubout");
        }
        if (!text.startsWith("-----BEGIN PUBLIC KEY-----") || !text.endsWith("-----END PUBLIC KEY-----")) {
            throw new IllegalArgumentException("queuegate.invites.public-key must be a PEM public key, from "
                    + "'-----BEGIN PUBLIC KEY-----' to '-----END PUBLIC KEY-----'");
        }
        String body = text.substring("-----BEGIN PUBLIC KEY-----".length(), text.length() - "-----END PUBLIC KEY-----".length());
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(body);
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("queuegate.invites.public-key is not valid base64 inside its PEM lines");
        }
        for (String type : new String[] {"RSA", "EC"}) {
            try {
                return KeyFactory.getInstance(type).generatePublic(new X509EncodedKeySpec(der));
            }
            catch (GeneralSecurityException notThisType) {
                // The other type, or neither.
            }
        }
        throw new IllegalArgumentException("queuegate.invites.public-key is neither an RSA nor an EC public key");
    }

    private static List<Named> jwkSet(String json) {
        JwkSet set;
        try {
            set = Jwks.setParser().build().parse(json);
        }
        catch (RuntimeException ex) {
            throw new IllegalArgumentException("queuegate.invites.jwk-set is not a JWK set: " + ex.getMessage(), ex);
        }
        List<Named> keys = new ArrayList<>();
        for (Jwk<?> jwk : set.getKeys()) {
            if (jwk instanceof PrivateJwk<?, ?, ?> || jwk instanceof SecretJwk) {
                throw new IllegalArgumentException("queuegate.invites.jwk-set holds a private or secret key"
                        + (jwk.getId() == null ? "" : " ('" + jwk.getId() + "')")
                        + "; give the gateway the public keys only");
            }
            if (jwk instanceof PublicJwk<?> publicJwk && (publicJwk.toKey() instanceof RSAPublicKey
                    || publicJwk.toKey() instanceof ECPublicKey)) {
                keys.add(new Named(jwk.getId(), jwk.getAlgorithm(), (PublicKey) publicJwk.toKey()));
            }
        }
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("queuegate.invites.jwk-set holds no RSA or EC public key");
        }
        return keys;
    }

    private record Named(String id, String algorithm, PublicKey key) {
    }
}
