package io.queuegate.support;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A JSON client's side of the proof of work, written from the protocol as docs/http-contract.md
 * tells it (not with the gateway's classes): take the {@code challenge} of a
 * {@code challenge_required} body, find the number, send the {@code Queue-Challenge} header.
 */
public final class PowSolver {

    private static final JsonMapper JSON = new JsonMapper();

    private PowSolver() {
    }

    /** The {@code Queue-Challenge} header that solves the challenge in an error body. */
    public static String solveBody(String errorBody) {
        return solve(JSON.readTree(errorBody).path("challenge"));
    }

    /** The {@code Queue-Challenge} header that solves a challenge ({@code algorithm, challenge, maxnumber, salt, signature}). */
    public static String solve(JsonNode challenge) {
        String salt = challenge.path("salt").asString();
        String wanted = challenge.path("challenge").asString();
        long max = challenge.path("maxnumber").asLong();
        long number = find(salt, wanted, max);
        return header(challenge, number);
    }

    /** The header for a given number, right or wrong: what a client sends. */
    public static String header(JsonNode challenge, long number) {
        Map<String, Object> solution = new LinkedHashMap<>();
        solution.put("algorithm", challenge.path("algorithm").asString());
        solution.put("challenge", challenge.path("challenge").asString());
        solution.put("number", number);
        solution.put("salt", challenge.path("salt").asString());
        solution.put("signature", challenge.path("signature").asString());
        return Base64.getEncoder().encodeToString(JSON.writeValueAsBytes(solution));
    }

    /** The number n, 0 <= n <= max, with hex(SHA-256(salt + n)) = wanted. */
    public static long find(String salt, String wanted, long max) {
        MessageDigest sha256;
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException(ex);
        }
        byte[] target = HexFormat.of().parseHex(wanted);
        for (long n = 0; n <= max; n++) {
            if (MessageDigest.isEqual(target, sha256.digest((salt + n).getBytes(StandardCharsets.UTF_8)))) {
                return n;
            }
        }
        throw new IllegalStateException("no number up to " + max + " solves the challenge");
    }

    /** The body's challenge, as a tree. */
    public static JsonNode challengeOf(String errorBody) {
        return JSON.readTree(errorBody).path("challenge");
    }
}
