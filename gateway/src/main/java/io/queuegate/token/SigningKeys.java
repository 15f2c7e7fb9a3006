package io.queuegate.token;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.SecretKey;

import io.jsonwebtoken.security.Keys;

/**
 * The current HS256 key and the previous ones still accepted, each known by a key id derived
 * from the secret itself, so a rotation needs no separate id bookkeeping.
 */
public final class SigningKeys {

    private final String currentId;
    private final Map<String, SecretKey> byId;
    private final List<SecretKey> all;

    public SigningKeys(String secret, List<String> previousSecrets) {
        Map<String, SecretKey> keys = new LinkedHashMap<>();
        this.currentId = keyId(secret);
        keys.put(currentId, key(secret));
        previousSecrets.forEach(old -> keys.putIfAbsent(keyId(old), key(old)));
        this.byId = Map.copyOf(keys);
        // LinkedHashMap keeps the order the keys were put in: the current one first.
        this.all = List.copyOf(keys.values());
    }

    public String currentId() {
        return currentId;
    }

    public SecretKey current() {
        return byId.get(currentId);
    }

    /** Every configured key, the current one first. */
    public List<SecretKey> all() {
        return all;
    }

    /** The key with this id, or {@code null} when no configured secret has it. */
    public SecretKey find(String keyId) {
        return keyId == null ? null : byId.get(keyId);
    }

    /** A short public id: a prefix of the secret's SHA-256, which reveals nothing usable. */
    static String keyId(String secret) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest).substring(0, 10);
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", ex);
        }
    }

    private static SecretKey key(String secret) {
        return Keys.hmacShaKeyFor(secret.getBytes(StandardCharsets.UTF_8));
    }
}
