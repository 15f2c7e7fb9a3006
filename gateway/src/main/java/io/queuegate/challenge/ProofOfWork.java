package io.queuegate.challenge;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import io.queuegate.config.QueueHeaders;

import org.altcha.altcha.Altcha;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The proof of work a join pays on a route with {@code join-challenge: pow}, in the ALTCHA
 * protocol (its Java library makes and checks the challenges): {@link #issue} hands out a
 * challenge for one product, signed with HMAC-SHA256 and expiring after the configured ttl;
 * {@link #verify} checks a {@code Queue-Challenge} header against it. Verifying costs one SHA-256
 * and one HMAC per configured key, a few microseconds, and no Redis: whether the solution was
 * used already is decided by the join itself, which takes the {@link Verdict.Solved#mark()} once.
 */
public final class ProofOfWork {

    /** The request header a solution comes back in: base64 of {@code {algorithm, challenge, number, salt, signature}}. */
    public static final String HEADER = QueueHeaders.CHALLENGE;

    /** The one hash the challenges use; a solution naming another is refused. */
    public static final String ALGORITHM = "SHA-256";

    /** Far more than a solution of ours takes (about 200 characters); longer headers are not read. */
    static final int MAX_HEADER_LENGTH = 1024;

    /** Instances' clocks may differ by this much: a mark outlives its challenge by it. */
    static final Duration CLOCK_SKEW = Duration.ofSeconds(30);

    private static final String PRODUCT_PARAM = "product";
    private static final String EXPIRES_PARAM = "expires";
    /** The difficulty a challenge was issued with, in its salt: signed with the rest of it. */
    private static final String DIFFICULTY_PARAM = "difficulty";

    private final String key;
    private final List<String> previousKeys;
    private final Duration ttl;
    private final Clock clock;
    private final JsonMapper json = new JsonMapper();

    /**
     * @param key the HMAC key that signs new challenges
     * @param previousKeys older keys whose challenges are still accepted (a rotation)
     * @param ttl how long a challenge may be solved and used
     */
    public ProofOfWork(String key, List<String> previousKeys, Duration ttl, Clock clock) {
        this.key = key;
        this.previousKeys = List.copyOf(previousKeys);
        this.ttl = ttl;
        this.clock = clock;
    }

    /**
     * The challenge key derived from a wait token secret: HMAC-SHA256 of a fixed label under the
     * secret, so the secret itself never signs anything but tokens, and every instance that
     * shares the token secret derives the same key.
     */
    public static String derivedKey(String tokenSecret) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(tokenSecret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal("queuegate join challenge".getBytes(StandardCharsets.UTF_8)));
        }
        catch (GeneralSecurityException ex) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", ex);
        }
    }

    /**
     * A fresh challenge for one product.
     *
     * @param difficulty the expected number of hashes that solve it: the secret number is drawn
     *                   uniformly below twice this, and a solver tries them from 0
     */
    public Challenge issue(String productId, int difficulty) {
        try {
            Altcha.ChallengeOptions options = new Altcha.ChallengeOptions()
                    .setAlgorithm(Altcha.Algorithm.SHA256)
                    .setMaxNumber(2L * difficulty)
                    .setSecureRandomNumber(true)
                    .setHmacKey(key)
                    .setExpires(clock.instant().plus(ttl).getEpochSecond())
                    .addParam(PRODUCT_PARAM, productId)
                    .addParam(DIFFICULTY_PARAM, Integer.toString(difficulty));
            Altcha.Challenge made = Altcha.createChallenge(options);
            return new Challenge(made.algorithm, made.challenge, made.maxnumber, made.salt, made.signature);
        }
        catch (Exception ex) {
            throw new IllegalStateException("could not make a proof-of-work challenge", ex);
        }
    }

    /**
     * Checks a solution: its form, its signature (under the current key or a previous one), its
     * product and its expiry, in that order, so only a genuine challenge's product or age is
     * ever reported.
     */
    public Verdict verify(String productId, String header) {
        if (header == null || header.isBlank()) {
            return new Verdict.Refused("the Queue-Challenge header is empty");
        }
        if (header.length() > MAX_HEADER_LENGTH) {
            return new Verdict.Refused("the Queue-Challenge header is longer than " + MAX_HEADER_LENGTH + " characters");
        }
        Solution solution = parse(header.trim());
        if (solution == null) {
            return new Verdict.Refused("the Queue-Challenge header is not base64 of a JSON object with algorithm, "
                    + "challenge, number, salt and signature");
        }
        if (!ALGORITHM.equals(solution.algorithm())) {
            return new Verdict.Refused("the challenge's algorithm must be " + ALGORITHM);
        }
        if (!signedHere(solution)) {
            return new Verdict.Refused("the solution does not solve a challenge signed by this gateway");
        }
        Map<String, String> params;
        try {
            params = Altcha.extractParams(solution.salt());
        }
        catch (Exception ex) {
            return new Verdict.Refused("the challenge's salt cannot be read");
        }
        if (!productId.equals(params.get(PRODUCT_PARAM))) {
            return new Verdict.Refused("the challenge was issued for another product");
        }
        long expires;
        try {
            expires = Long.parseLong(params.getOrDefault(EXPIRES_PARAM, ""));
        }
        catch (NumberFormatException ex) {
            return new Verdict.Refused("the challenge has no expiry");
        }
        long nowMillis = clock.millis();
        if (nowMillis > expires * 1000) {
            return new Verdict.Refused("the challenge has expired: ask for a new one by joining without it");
        }
        Duration keep = Duration.ofMillis(expires * 1000 - nowMillis).plus(CLOCK_SKEW);
        int difficulty;
        try {
            difficulty = Integer.parseInt(params.getOrDefault(DIFFICULTY_PARAM, "0"));
        }
        catch (NumberFormatException ex) {
            difficulty = 0;
        }
        // The challenge hash names the solution however its salt and number are split.
        return new Verdict.Solved(solution.challenge().substring(0, 32), keep, difficulty);
    }

    /** Whether SHA-256(salt + number) is the challenge and the challenge carries one of our signatures. */
    private boolean signedHere(Solution solution) {
        List<String> keys = new ArrayList<>(1 + previousKeys.size());
        keys.add(key);
        keys.addAll(previousKeys);
        for (String candidate : keys) {
            Altcha.Challenge expected;
            try {
                Altcha.ChallengeOptions options = new Altcha.ChallengeOptions()
                        .setAlgorithm(Altcha.Algorithm.SHA256)
                        .setHmacKey(candidate)
                        .setNumber(solution.number())
                        .setSalt(solution.salt());
                expected = Altcha.createChallenge(options);
            }
            catch (Exception ex) {
                return false;
            }
            // The challenge does not depend on the key: a wrong number fails every key alike.
            if (!same(expected.challenge, solution.challenge())) {
                return false;
            }
            if (same(expected.signature, solution.signature())) {
                return true;
            }
        }
        return false;
    }

    /** Constant time: a timing difference must not tell a forger how much of a signature is right. */
    private static boolean same(String expected, String given) {
        return MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8), given.getBytes(StandardCharsets.UTF_8));
    }

    private Solution parse(String header) {
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(header);
        }
        catch (IllegalArgumentException notStandard) {
            try {
                decoded = Base64.getUrlDecoder().decode(header);
            }
            catch (IllegalArgumentException notUrlSafe) {
                return null;
            }
        }
        JsonNode node;
        try {
            node = json.readTree(decoded);
        }
        catch (JacksonException ex) {
            return null;
        }
        if (node == null || !node.isObject()) {
            return null;
        }
        String algorithm = text(node, "algorithm", 16);
        String challenge = text(node, "challenge", 64);
        String salt = text(node, "salt", 512);
        String signature = text(node, "signature", 128);
        JsonNode number = node.get("number");
        if (algorithm == null || challenge == null || salt == null || signature == null || number == null
                || !number.isIntegralNumber() || !number.canConvertToLong() || number.longValue() < 0
                || challenge.length() != 64) {
            return null;
        }
        return new Solution(algorithm, challenge, number.longValue(), salt, signature);
    }

    private static String text(JsonNode node, String field, int maxLength) {
        JsonNode value = node.get(field);
        if (value == null || !value.isString()) {
            return null;
        }
        String text = value.stringValue();
        return text.isEmpty() || text.length() > maxLength ? null : text;
    }

    private record Solution(String algorithm, String challenge, long number, String salt, String signature) {
    }
}
