package io.queuegate.support;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;

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

    private static String base64(String json) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }
}
