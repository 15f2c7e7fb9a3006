package io.queuegate.challenge;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;

import io.queuegate.support.PowSolver;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The proof of work from the attacker's side, with a fixed clock: only a genuine, unexpired
 * solution of a challenge this gateway signed for this very product passes, and it passes under
 * one name (its mark) however its fields are written, so Redis can take it once.
 */
class ProofOfWorkTest {

    private static final String KEY = ProofOfWork.derivedKey("test-secret-that-is-long-enough-for-hs256-0123456789");
    private static final Instant NOW = Instant.parse("2026-12-03T19:00:00Z");
    private static final JsonMapper JSON = new JsonMapper();

    private final ProofOfWork pow = at(NOW, KEY);

    @Test
    void aSolvedChallengeForItsProductPassesWithAMarkThatOutlivesIt() {
        Challenge challenge = pow.issue("42", 1_000);
        assertThat(challenge.algorithm()).isEqualTo("SHA-256");
        assertThat(challenge.maxnumber()).isEqualTo(2_000);
        assertThat(challenge.salt()).contains("product=42").contains("expires=" + NOW.plusSeconds(120).getEpochSecond())
                .endsWith("&");

        Verdict verdict = pow.verify("42", PowSolver.solve(tree(challenge)));

        assertThat(verdict).isInstanceOf(Verdict.Solved.class);
        Verdict.Solved solved = (Verdict.Solved) verdict;
        assertThat(solved.mark()).isEqualTo(challenge.challenge().substring(0, 32));
        assertThat(solved.markTtl()).isEqualTo(Duration.ofSeconds(120 + 30));
    }

    @Test
    void aSolutionForAnotherProductIsRefused() {
        String solution = PowSolver.solve(tree(pow.issue("7", 1_000)));
        assertThat(refusal(pow.verify("42", solution))).isEqualTo("the challenge was issued for another product");
    }

    @Test
    void anExpiredSolutionIsRefusedThoughItWasGenuine() {
        String solution = PowSolver.solve(tree(pow.issue("42", 1_000)));
        ProofOfWork later = at(NOW.plusSeconds(121), KEY);
        assertThat(refusal(later.verify("42", solution))).startsWith("the challenge has expired");
        // Up to its expiry it is good.
        assertThat(at(NOW.plusSeconds(120), KEY).verify("42", solution)).isInstanceOf(Verdict.Solved.class);
    }

    @Test
    void aChallengeSignedWithAnotherKeyIsRefused() {
        ProofOfWork forger = at(NOW, ProofOfWork.derivedKey("a-forgers-secret-that-is-long-enough-0123456789"));
        String forged = PowSolver.solve(tree(forger.issue("42", 1_000)));
        assertThat(refusal(pow.verify("42", forged))).isEqualTo("the solution does not solve a challenge signed by this gateway");
    }

    @Test
    void aSaltEditedToAnotherProductOrALaterExpiryLosesItsSignature() {
        Challenge genuine = pow.issue("7", 1_000);
        long number = PowSolver.find(genuine.salt(), genuine.challenge(), genuine.maxnumber());
        String edited = genuine.salt().replace("product=7", "product=42");
        // The attacker even redoes the hash for the edited salt; only the signature is out of reach.
        String rehashed = sha256(edited + number);
        String header = encode("{\"algorithm\":\"SHA-256\",\"challenge\":\"" + rehashed + "\",\"number\":" + number
                + ",\"salt\":\"" + edited + "\",\"signature\":\"" + genuine.signature() + "\"}");
        assertThat(refusal(pow.verify("42", header))).isEqualTo("the solution does not solve a challenge signed by this gateway");
    }

    @Test
    void aWrongNumberIsRefused() {
        Challenge challenge = pow.issue("42", 1_000);
        long number = PowSolver.find(challenge.salt(), challenge.challenge(), challenge.maxnumber());
        assertThat(pow.verify("42", PowSolver.header(tree(challenge), number + 1))).isInstanceOf(Verdict.Refused.class);
    }

    @Test
    void theSameSolutionWrittenAnotherWayHasTheSameMark() {
        Challenge challenge = pow.issue("42", 1_000);
        long number = PowSolver.find(challenge.salt(), challenge.challenge(), challenge.maxnumber());
        Verdict.Solved plain = (Verdict.Solved) pow.verify("42", PowSolver.header(tree(challenge), number));
        // Other field order, an extra field: the mark is the challenge, not the header's text,
        // so both spellings are one solution and the second is a replay.
        String reordered = encode("{\"signature\":\"" + challenge.signature() + "\",\"salt\":\"" + challenge.salt()
                + "\",\"number\":" + number + ",\"challenge\":\"" + challenge.challenge()
                + "\",\"algorithm\":\"SHA-256\",\"took\":12}");
        Verdict.Solved again = (Verdict.Solved) pow.verify("42", reordered);
        assertThat(again.mark()).isEqualTo(plain.mark());
    }

    @Test
    void aChallengeSignedBeforeARotationIsStillAccepted() {
        String old = ProofOfWork.derivedKey("the-previous-secret-that-is-long-enough-0123456789");
        String solution = PowSolver.solve(tree(at(NOW, old).issue("42", 1_000)));
        ProofOfWork rotated = new ProofOfWork(KEY, List.of(old), Duration.ofMinutes(2), Clock.fixed(NOW, ZoneOffset.UTC));
        assertThat(rotated.verify("42", solution)).isInstanceOf(Verdict.Solved.class);
        assertThat(pow.verify("42", solution)).isInstanceOf(Verdict.Refused.class);
    }

    @Test
    void headersThatAreNoSolutionAreRefusedWithoutAnError() {
        for (String header : List.of("", "not base64!", encode("[]"), encode("{\"algorithm\":\"SHA-256\"}"),
                encode("{\"algorithm\":\"SHA-1\",\"challenge\":\"" + "a".repeat(64)
                        + "\",\"number\":1,\"salt\":\"s\",\"signature\":\"x\"}"),
                encode("{\"algorithm\":\"SHA-256\",\"challenge\":\"" + "a".repeat(64)
                        + "\",\"number\":1.5,\"salt\":\"s\",\"signature\":\"x\"}"),
                encode("{\"algorithm\":\"SHA-256\",\"challenge\":\"" + "a".repeat(64)
                        + "\",\"number\":-1,\"salt\":\"s\",\"signature\":\"x\"}"),
                "A".repeat(2_000))) {
            assertThat(pow.verify("42", header)).as(header).isInstanceOf(Verdict.Refused.class);
        }
    }

    @Test
    void theDerivedKeyIsStableAndNotTheSecret() {
        String secret = "test-secret-that-is-long-enough-for-hs256-0123456789";
        assertThat(ProofOfWork.derivedKey(secret)).isEqualTo(KEY).hasSize(64).doesNotContain(secret);
        assertThat(ProofOfWork.derivedKey(secret + "x")).isNotEqualTo(KEY);
    }

    private static ProofOfWork at(Instant now, String key) {
        return new ProofOfWork(key, List.of(), Duration.ofMinutes(2), Clock.fixed(now, ZoneOffset.UTC));
    }

    private static JsonNode tree(Challenge challenge) {
        return JSON.valueToTree(challenge);
    }

    private static String refusal(Verdict verdict) {
        assertThat(verdict).isInstanceOf(Verdict.Refused.class);
        return ((Verdict.Refused) verdict).detail();
    }

    private static String encode(String json) {
        return Base64.getEncoder().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    private static String sha256(String text) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        }
        catch (java.security.NoSuchAlgorithmException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
