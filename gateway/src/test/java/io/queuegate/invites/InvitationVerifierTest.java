package io.queuegate.invites;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.jsonwebtoken.Jwts;
import io.jsonwebtoken.security.Jwks;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Invitations checked with each kind of key, by an attacker's light: another key, another
 * algorithm, an HS256 invitation signed with the public key (the classic confusion), edited or
 * odd claims, and the clock. Pure computation, with a fixed clock.
 */
class InvitationVerifierTest {

    private static final String SECRET = "an-invitation-secret-long-enough-for-hs256-0123";
    private static final Instant NOW = Instant.parse("2026-12-03T10:00:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
    private static final Instant IN_AN_HOUR = NOW.plus(Duration.ofHours(1));

    private static final KeyPair RSA = pair("RSA", null);
    private static final KeyPair OTHER_RSA = pair("RSA", null);
    private static final KeyPair EC = pair("EC", "secp256r1");

    @Test
    void anHs256InvitationWithTheSecretIsValidForItsProduct() {
        InvitationVerifier verifier = verifier(InvitationKeys.of(SECRET, null, null));
        String invitation = InvitationMinter.mint(InvitationMinter.secretKey(SECRET), null, "42", null, 3, IN_AN_HOUR, "presale-1");
        assertThat(verifier.check(invitation, "42", null)).isEqualTo(new InvitationCheck.Valid(
                new Invitation("presale-1", "42", null, 3, IN_AN_HOUR)));
        assertThat(refusal(verifier.check(invitation, "7", null))).isEqualTo("the invitation is for another product");
        assertThat(verifier.check(null, "42", null)).isEqualTo(InvitationCheck.ABSENT);
    }

    @Test
    void anRs256InvitationIsCheckedWithThePemPublicKey() {
        InvitationVerifier verifier = verifier(InvitationKeys.of(null, pem(RSA), null));
        assertThat(verifier.check(InvitationMinter.mint(RSA.getPrivate(), null, "42", null, 1, IN_AN_HOUR, "r-1"), "42", null)
                .valid()).isTrue();
        assertThat(refusal(verifier.check(InvitationMinter.mint(OTHER_RSA.getPrivate(), null, "42", null, 1, IN_AN_HOUR, "r-2"),
                "42", null))).isEqualTo("the invitation's signature does not match");
    }

    @Test
    void anEs256InvitationIsCheckedWithTheKeyItNamesInTheJwkSet() {
        String jwkSet = json(Map.of("keys", List.of(jwk(RSA, "rsa-2026"), jwk(EC, "ec-2026"))));
        InvitationVerifier verifier = verifier(InvitationKeys.of(null, null, jwkSet));
        assertThat(verifier.check(InvitationMinter.mint(EC.getPrivate(), "ec-2026", "*", "alice", 1, IN_AN_HOUR, "e-1"), "42",
                "alice").valid()).isTrue();
        assertThat(verifier.check(InvitationMinter.mint(RSA.getPrivate(), "rsa-2026", "42", null, 1, IN_AN_HOUR, "e-2"), "42",
                null).valid()).isTrue();
        assertThat(refusal(verifier.check(InvitationMinter.mint(EC.getPrivate(), "retired", "42", null, 1, IN_AN_HOUR, "e-3"),
                "42", null))).contains("no configured key");
    }

    @Test
    void anHs256InvitationSignedWithThePublicKeyItselfIsRefused() {
        String publicPem = pem(RSA);
        InvitationVerifier verifier = verifier(InvitationKeys.of(null, publicPem, null));
        // Anyone has the public key: as an HMAC secret it would sign whatever they like.
        String confused = Jwts.builder().id("x").claim("pid", "42").expiration(java.util.Date.from(IN_AN_HOUR))
                .signWith(io.jsonwebtoken.security.Keys.hmacShaKeyFor(RSA.getPublic().getEncoded()), Jwts.SIG.HS256)
                .compact();
        assertThat(refusal(verifier.check(confused, "42", null))).contains("HS256, but no secret is configured");
        // And an RS256 invitation where only a secret is configured finds no key either.
        assertThat(refusal(verifier(InvitationKeys.of(SECRET, null, null)).check(
                InvitationMinter.mint(RSA.getPrivate(), null, "42", null, 1, IN_AN_HOUR, "r-3"), "42", null)))
                .contains("no configured key");
    }

    @Test
    void otherAlgorithmsAndUnsignedInvitationsAreRefused() {
        InvitationVerifier verifier = verifier(InvitationKeys.of(SECRET, pem(RSA), null));
        String hs512 = Jwts.builder().id("x").claim("pid", "42").expiration(java.util.Date.from(IN_AN_HOUR))
                .signWith(io.jsonwebtoken.security.Keys.hmacShaKeyFor((SECRET + SECRET).getBytes(StandardCharsets.UTF_8)),
                        Jwts.SIG.HS512).compact();
        assertThat(refusal(verifier.check(hs512, "42", null))).contains("HS256, RS256 or ES256");
        String unsigned = Jwts.builder().id("x").claim("pid", "42").expiration(java.util.Date.from(IN_AN_HOUR)).compact();
        assertThat(refusal(verifier.check(unsigned, "42", null))).isEqualTo("the invitation is not a signed JWT");
    }

    @Test
    void theClaimsMustBeThereAndBeSane() {
        InvitationVerifier verifier = verifier(InvitationKeys.of(SECRET, null, null));
        Map<String, String> refused = new LinkedHashMap<>();
        refused.put("no jti", sign(Map.of("pid", "42", "exp", IN_AN_HOUR.getEpochSecond())));
        refused.put("no pid", sign(Map.of("jti", "a", "exp", IN_AN_HOUR.getEpochSecond())));
        refused.put("no exp", sign(Map.of("jti", "a", "pid", "42")));
        refused.put("jti with a space", sign(Map.of("jti", "a b", "pid", "42", "exp", IN_AN_HOUR.getEpochSecond())));
        refused.put("jti too long", sign(Map.of("jti", "a".repeat(129), "pid", "42", "exp", IN_AN_HOUR.getEpochSecond())));
        refused.put("uses 0", sign(Map.of("jti", "a", "pid", "42", "exp", IN_AN_HOUR.getEpochSecond(), "uses", 0)));
        refused.put("uses 1.5", sign(Map.of("jti", "a", "pid", "42", "exp", IN_AN_HOUR.getEpochSecond(), "uses", 1.5)));
        refused.put("uses text", sign(Map.of("jti", "a", "pid", "42", "exp", IN_AN_HOUR.getEpochSecond(), "uses", "9")));
        refused.put("expired", sign(Map.of("jti", "a", "pid", "42", "exp", NOW.minusSeconds(31).getEpochSecond())));
        refused.put("not yet", sign(Map.of("jti", "a", "pid", "42", "exp", IN_AN_HOUR.getEpochSecond(),
                "nbf", NOW.plusSeconds(600).getEpochSecond())));
        refused.put("padded", InvitationMinter.mint(InvitationMinter.secretKey(SECRET), null, "42", null, 1, IN_AN_HOUR, "p") + "=");
        refused.put("huge", "a".repeat(InvitationVerifier.MAX_LENGTH + 1));
        refused.forEach((what, invitation) -> assertThat(verifier.check(invitation, "42", null))
                .as(what).isInstanceOf(InvitationCheck.Invalid.class));
        assertThat(refusal(verifier.check(refused.get("expired"), "42", null))).isEqualTo("the invitation has expired");
    }

    @Test
    void anInvitationForAShopperIsTheirsAlone() {
        InvitationVerifier verifier = verifier(InvitationKeys.of(SECRET, null, null));
        String forAlice = InvitationMinter.mint(InvitationMinter.secretKey(SECRET), null, "42", "alice", 1, IN_AN_HOUR, "s-1");
        assertThat(verifier.check(forAlice, "42", "alice").valid()).isTrue();
        assertThat(refusal(verifier.check(forAlice, "42", "bob"))).isEqualTo("the invitation is for another shopper");
        assertThat(refusal(verifier.check(forAlice, "42", null))).isEqualTo("the invitation is for another shopper");
    }

    @Test
    void keysThatCannotCheckAnythingStopTheStart() {
        assertThatThrownBy(() -> InvitationKeys.of("short", null, null)).hasMessageContaining("at least 32 bytes");
        assertThatThrownBy(() -> InvitationKeys.of(null, "-----BEGIN RSA PUBLIC KEY-----\nAAAA\n-----END RSA PUBLIC KEY-----",
                null)).hasMessageContaining("PKCS#1");
        KeyPair edwards = pair("Ed25519", null);
        assertThatThrownBy(() -> InvitationKeys.of(null, null, json(Map.of("keys", List.of(jwk(edwards, "ed"))))))
                .hasMessageContaining("no RSA or EC public key");
        ECPrivateKey d = (ECPrivateKey) EC.getPrivate();
        Map<String, Object> privateJwk = new LinkedHashMap<>(jwk(EC, "leaked"));
        privateJwk.put("d", Base64.getUrlEncoder().withoutPadding().encodeToString(unsigned32(d.getS().toByteArray())));
        assertThatThrownBy(() -> InvitationKeys.of(null, null, json(Map.of("keys", List.of(privateJwk)))))
                .hasMessageContaining("holds a private or secret key");
        assertThat(InvitationKeys.of(null, null, null).isEmpty()).isTrue();
    }

    private static InvitationVerifier verifier(InvitationKeys keys) {
        return new InvitationVerifier(keys, CLOCK);
    }

    private static String refusal(InvitationCheck check) {
        assertThat(check).isInstanceOf(InvitationCheck.Invalid.class);
        return ((InvitationCheck.Invalid) check).reason();
    }

    private static String sign(Map<String, Object> claims) {
        return Jwts.builder().claims(claims).signWith(io.jsonwebtoken.security.Keys.hmacShaKeyFor(
                SECRET.getBytes(StandardCharsets.UTF_8)), Jwts.SIG.HS256).compact();
    }

    private static KeyPair pair(String algorithm, String curve) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance(algorithm);
            if (curve != null) {
                generator.initialize(new ECGenParameterSpec(curve));
            }
            else if (algorithm.equals("RSA")) {
                generator.initialize(2048);
            }
            return generator.generateKeyPair();
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static String pem(KeyPair pair) {
        return "-----BEGIN PUBLIC KEY-----\n" + Base64.getMimeEncoder().encodeToString(pair.getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n";
    }

    private static Map<String, Object> jwk(KeyPair pair, String id) {
        Map<String, Object> jwk = new LinkedHashMap<>();
        Jwks.builder().key((java.security.PublicKey) pair.getPublic()).id(id).build()
                .forEach((name, value) -> jwk.put(name, String.valueOf(value)));
        return jwk;
    }

    private static String json(Object value) {
        return JsonMapper.builder().build().writeValueAsString(value);
    }

    private static byte[] unsigned32(byte[] value) {
        byte[] out = new byte[32];
        int from = Math.max(0, value.length - 32);
        System.arraycopy(value, from, out, 32 - (value.length - from), value.length - from);
        return out;
    }
}
