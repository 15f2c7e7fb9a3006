package io.queuegate.support;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import io.jsonwebtoken.Jwts;
import io.jsonwebtoken.security.SecureDigestAlgorithm;
import io.queuegate.token.SigningKeys;
import io.queuegate.token.WaitTokenCodec;

/** Tokens good and bad, made the way an attacker or a stale client would make them. */
public final class Tokens {

    private Tokens() {
    }

    public static WaitTokenCodec codec(String secret, Clock clock) {
        return new WaitTokenCodec(new SigningKeys(secret, List.of()), Duration.ofHours(2), clock);
    }

    public static WaitTokenCodec codec(String secret) {
        return codec(secret, Clock.systemUTC());
    }

    /** A token that expired an hour ago. */
    public static String expired(String secret, String productId, String userId) {
        Clock past = Clock.fixed(Instant.now().minus(Duration.ofHours(3)), ZoneOffset.UTC);
        return codec(secret, past).issue(productId, userId, false);
    }

    /** The same claims with {@code alg: none} and no signature. */
    public static String unsigned(String productId, String userId) {
        String header = base64("{\"alg\":\"none\"}");
        long now = Instant.now().getEpochSecond();
        String payload = base64("{\"typ\":\"wait\",\"pid\":\"" + productId + "\",\"uid\":\"" + userId
                + "\",\"anon\":false,\"iat\":" + now + ",\"exp\":" + (now + 3600) + "}");
        return header + "." + payload + ".";
    }

    /** A valid token whose payload was edited to another user, keeping the old signature. */
    public static String tampered(String validToken, String otherUserId) {
        String[] parts = validToken.split("\\.");
        String payload = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
        String edited = payload.replaceFirst("\"uid\":\"[^\"]*\"", "\"uid\":\"" + otherUserId + "\"");
        return parts[0] + "." + base64(edited) + "." + parts[2];
    }

    /** A valid token with one string claim's value replaced, keeping the old signature. */
    public static String tamperedClaim(String validToken, String claim, String value) {
        String[] parts = validToken.split("\\.");
        String payload = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
        String edited = payload.replaceFirst("\"" + claim + "\":\"[^\"]*\"", "\"" + claim + "\":\"" + value + "\"");
        if (edited.equals(payload)) {
            throw new IllegalArgumentException("the token has no string claim " + claim);
        }
        return parts[0] + "." + base64(edited) + "." + parts[2];
    }

    /** The {@code kid} the gateway puts in (and expects of) tokens signed with this secret. */
    public static String keyId(String secret) {
        return new SigningKeys(secret, List.of()).currentId();
    }

    /**
     * The claims of a good wait token, in order, valid from now for an hour: edit the copy to
     * make a bad one ({@code put} to change, {@code remove} to drop a claim).
     */
    public static Map<String, Object> waitClaims(String productId, String userId) {
        long now = Instant.now().getEpochSecond();
        Map<String, Object> claims = new LinkedHashMap<>();
        claims.put("typ", "wait");
        claims.put("pid", productId);
        claims.put("uid", userId);
        claims.put("anon", false);
        claims.put("iat", now);
        claims.put("exp", now + 3600);
        return claims;
    }

    /** The header of a good wait token signed with {@code secret}: HS256 and its key id. */
    public static Map<String, Object> hs256Header(String secret) {
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("alg", "HS256");
        header.put("kid", keyId(secret));
        return header;
    }

    /**
     * A compact JWS made by hand, so every byte is the attacker's choice: the header and payload
     * as given (JSON text, not checked), signed with HMAC ({@code HmacSHA256}, {@code HmacSHA384}
     * or {@code HmacSHA512}) over {@code secret} whatever the header's {@code alg} says.
     */
    public static String hmacSigned(String macAlgorithm, String secret, String headerJson, String payloadJson) {
        String signingInput = base64(headerJson) + "." + base64(payloadJson);
        return signingInput + "." + hmac(macAlgorithm, secret, signingInput);
    }

    /** {@link #hmacSigned} with HS256 over JSON made from maps. */
    public static String hs256(String secret, Map<String, Object> header, Map<String, Object> claims) {
        return hmacSigned("HmacSHA256", secret, json(header), json(claims));
    }

    /** The URL-safe, unpadded base64 signature of {@code signingInput}. */
    public static String hmac(String macAlgorithm, String secret, String signingInput) {
        try {
            Mac mac = Mac.getInstance(macAlgorithm);
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), macAlgorithm));
            byte[] signature = mac.doFinal(signingInput.getBytes(StandardCharsets.US_ASCII));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(signature);
        }
        catch (java.security.GeneralSecurityException ex) {
            throw new IllegalStateException(macAlgorithm + " is part of every Java runtime", ex);
        }
    }

    /** Signed by jjwt with any key and algorithm (RS256, ES256, ...), with this {@code kid}. */
    public static String signedWith(java.security.Key key, SecureDigestAlgorithm<?, ?> algorithm, String keyId,
            Map<String, Object> claims) {
        var builder = Jwts.builder();
        if (keyId != null) {
            builder.header().keyId(keyId);
        }
        @SuppressWarnings({ "unchecked", "rawtypes" })
        SecureDigestAlgorithm<java.security.Key, ?> any = (SecureDigestAlgorithm) algorithm;
        return builder.claims(claims).signWith(key, any).compact();
    }

    /** An unsigned token ({@code header.payload.} or, without the dot, {@code header.payload}). */
    public static String unsecured(String headerJson, String payloadJson, boolean trailingDot) {
        return base64(headerJson) + "." + base64(payloadJson) + (trailingDot ? "." : "");
    }

    /** JSON text for a small map of strings, numbers, booleans, nulls and lists of them. */
    public static String json(Map<String, Object> fields) {
        StringBuilder out = new StringBuilder("{");
        for (Iterator<Map.Entry<String, Object>> it = fields.entrySet().iterator(); it.hasNext();) {
            Map.Entry<String, Object> field = it.next();
            out.append(jsonValue(field.getKey())).append(':').append(jsonValue(field.getValue()));
            if (it.hasNext()) {
                out.append(',');
            }
        }
        return out.append('}').toString();
    }

    private static String jsonValue(Object value) {
        if (value == null || value instanceof Number || value instanceof Boolean) {
            return String.valueOf(value);
        }
        if (value instanceof List<?> list) {
            StringBuilder out = new StringBuilder("[");
            for (int i = 0; i < list.size(); i++) {
                out.append(i == 0 ? "" : ",").append(jsonValue(list.get(i)));
            }
            return out.append(']').toString();
        }
        StringBuilder out = new StringBuilder("\"");
        for (char c : value.toString().toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> out.append(c < 0x20 ? String.format("\\u%04x", (int) c) : String.valueOf(c));
            }
        }
        return out.append('"').toString();
    }

    public static String base64(String text) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }
}
