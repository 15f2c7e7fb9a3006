package io.queuegate.admission;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.jayway.jsonpath.JsonPath;
import io.jsonwebtoken.Jwts;
import io.jsonwebtoken.security.Jwks;
import io.queuegate.support.GatewayFixture;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.Tokens;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Malformed and hostile tokens, headers and ids, each sent to a running gateway: every one is
 * answered by the gateway itself with the status and error code of docs/http-contract.md, never a
 * 5xx, never forwarded to the shop, and without leaving anything in Redis.
 *
 * <p>Forged tokens use {@link GatewayInstance#SECRET} only where the attack needs the real key
 * (another algorithm over the real secret, or a correctly signed token with bad claims); the
 * others are signed with keys of their own.
 */
class HostileInputTest {

    private static final String SECRET = GatewayInstance.SECRET;
    private static final String OTHER_SECRET = "an-attackers-own-secret-that-is-long-enough-for-hs256";
    private static final String KID = Tokens.keyId(SECRET);
    private static final String PRODUCT = "/api/products/42";
    private static final String STATUS = "/queue/42/status";

    /** Expected status of requests the HTTP server itself refuses (any 4xx, with its own body). */
    private static final int ANY_4XX = -1;

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1",
                    "complete-on", "POST /api/products/{productId}/orders", "product-id-pattern", "[1-9][0-9]*"))
            // A catch-all route beside the protected one: what a spelling would fall through to.
            .withOpenRoute("everything-else", "/**");

    @Test
    void aHandMadeTokenWithGoodClaimsIsAcceptedSoTheForgeriesBelowFailForTheirOwnFlaw() {
        Answer answer = send(product(Tokens.hs256(SECRET, Tokens.hs256Header(SECRET), Tokens.waitClaims("42", "alice"))));
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        fixture.backend().verify(1, anyRequestedFor(anyUrl()));
        Answer raw = send(product(good()).raw());
        assertThat(raw.status()).as("the raw client speaks HTTP well enough: %s", raw.body()).isEqualTo(200);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("truncatedAndGarbledTokens")
    void truncatedGarbledOrOversizedTokensAreRefused(Case hostile) {
        check(hostile);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tokensSignedAnotherWay")
    void tokensSignedWithAnotherKeyOrAlgorithmAreRefused(Case hostile) {
        check(hostile);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("correctlySignedBadClaims")
    void correctlySignedTokensWithBadClaimsAreRefused(Case hostile) {
        check(hostile);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hostileHeaders")
    void ambiguousInjectedOrOversizedHeadersAreRefused(Case hostile) {
        check(hostile);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("illegalIds")
    void illegalProductIdsAreRefused(Case hostile) {
        check(hostile);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pathSpellings")
    void pathsWrittenMoreThanOneWayAreRefusedBeforeRouting(Case hostile) {
        check(hostile);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("statusAndLeaveWithBadTokens")
    void theStatusAndLeaveEndpointsRefuseBadTokensToo(Case hostile) {
        check(hostile);
    }

    // ---------------------------------------------------------------------------------- cases

    static Stream<Arguments> truncatedAndGarbledTokens() {
        String good = good();
        String[] parts = good.split("\\.");
        String signature = parts[2];
        int middle = signature.length() / 2;
        String header = parts[0];
        return Stream.of(
                refused("a token cut after its header", product(parts[0]), 401, "invalid_token"),
                refused("a token cut before its signature, without the second dot",
                        product(parts[0] + "." + parts[1]), 401, "invalid_token"),
                refused("a token cut before its signature, keeping the second dot",
                        product(parts[0] + "." + parts[1] + "."), 401, "invalid_token"),
                refused("a token whose signature is cut short by four characters",
                        product(good.substring(0, good.length() - 4)), 401, "invalid_token"),
                refused("a token with one signature character changed",
                        product(parts[0] + "." + parts[1] + "." + signature.substring(0, middle)
                                + (signature.charAt(middle) == 'A' ? 'B' : 'A') + signature.substring(middle + 1)),
                        401, "invalid_token", "the token's signature does not match"),
                refused("a 10 KB token", product(header + "." + "A".repeat(10_000) + "." + signature), 401,
                        "invalid_token", "the token is longer than 2048 characters"),
                refused("a token with base64 padding on its payload",
                        product(parts[0] + "." + parts[1] + "==." + signature), 401, "invalid_token"),
                refused("a token with base64 padding on its signature", product(good + "="), 401, "invalid_token"),
                refused("a token with '+' and '/' of standard base64 in its signature",
                        product(parts[0] + "." + parts[1] + "." + "+/" + signature.substring(2)), 401,
                        "invalid_token"),
                refused("a token with '*' and '!' in its payload",
                        product(parts[0] + ".*!" + parts[1].substring(2) + "." + signature), 401, "invalid_token"),
                refused("a token whose payload is a JSON array",
                        product(Tokens.hmacSigned("HmacSHA256", SECRET, hs256Header(), "[\"wait\",\"42\",\"alice\"]")),
                        401, "invalid_token"),
                refused("a token whose payload is a JSON string",
                        product(Tokens.hmacSigned("HmacSHA256", SECRET, hs256Header(), "\"42\"")), 401,
                        "invalid_token"),
                refused("a token whose payload is not JSON",
                        product(Tokens.hmacSigned("HmacSHA256", SECRET, hs256Header(), "pid=42&uid=alice")), 401,
                        "invalid_token"),
                refused("a token whose payload is broken JSON",
                        product(Tokens.hmacSigned("HmacSHA256", SECRET, hs256Header(), "{\"typ\":\"wait\",\"pid\":")),
                        401, "invalid_token"),
                refused("a token whose header is a JSON array",
                        product(Tokens.hmacSigned("HmacSHA256", SECRET, "[\"HS256\",\"" + KID + "\"]",
                                Tokens.json(Tokens.waitClaims("42", "alice")))),
                        401, "invalid_token"),
                refused("a JWE-looking token of five parts (alg dir, A256GCM)",
                        product(Tokens.base64("{\"alg\":\"dir\",\"enc\":\"A256GCM\",\"kid\":\"" + KID + "\"}")
                                + "..AAECAwQFBgcICQoL." + parts[1] + ".AAECAwQFBgcICQoLDA0ODw"),
                        401, "invalid_token"),
                refused("a token of five garbage parts", product("a.b.c.d.e"), 401, "invalid_token"),
                refused("a token of blanks only", product("    ").raw(), 401, "invalid_token"),
                refused("a token with junk ('!') after its signature", product(good + "!"), 401, "invalid_token"));
    }

    static Stream<Arguments> tokensSignedAnotherWay() {
        Map<String, Object> claims = Tokens.waitClaims("42", "alice");
        String payload = Tokens.json(claims);
        KeyPair rsa = Jwts.SIG.RS256.keyPair().build();
        KeyPair ec = Jwts.SIG.ES256.keyPair().build();
        String embeddedJwk = Jwts.builder()
                .header().keyId(KID).add("jwk", Jwks.builder().key(rsa.getPublic()).build()).and()
                .claims(claims).signWith(rsa.getPrivate(), Jwts.SIG.RS256).compact();
        String realSignature = good().split("\\.")[2];
        String mustBeHs256 = "the token must be signed with HS256";
        return Stream.of(
                refused("a token re-signed with another key under the gateway's key id",
                        product(Tokens.hs256(OTHER_SECRET, Tokens.hs256Header(SECRET), claims)), 401, "invalid_token",
                        "the token's signature does not match"),
                refused("a token re-signed with another key under its own unknown key id",
                        product(Tokens.hs256(OTHER_SECRET, Tokens.hs256Header(OTHER_SECRET), claims)), 401,
                        "invalid_token", "the token's key id is unknown"),
                refused("a token signed HS384 with the gateway's real secret",
                        product(Tokens.hmacSigned("HmacSHA384", SECRET, header("HS384", KID), payload)), 401,
                        "invalid_token", mustBeHs256),
                refused("a token signed HS512 with a long-enough key of its own",
                        product(Tokens.signedWith(Jwts.SIG.HS512.key().build(), Jwts.SIG.HS512, KID, claims)), 401,
                        "invalid_token", mustBeHs256),
                refused("a token signed HS512 with the gateway's real secret",
                        product(Tokens.hmacSigned("HmacSHA512", SECRET, header("HS512", KID), payload)), 401,
                        "invalid_token", mustBeHs256),
                refused("a token signed RS256 with a generated RSA key",
                        product(Tokens.signedWith(rsa.getPrivate(), Jwts.SIG.RS256, KID, claims)), 401,
                        "invalid_token", mustBeHs256),
                refused("a token signed ES256 with a generated EC key",
                        product(Tokens.signedWith(ec.getPrivate(), Jwts.SIG.ES256, KID, claims)), 401,
                        "invalid_token", mustBeHs256),
                refused("a token signed RS256 that carries its own public key (jwk header)", product(embeddedJwk),
                        401, "invalid_token", mustBeHs256),
                refused("a token with alg 'hs256' in lower case, signed with the real secret",
                        product(Tokens.hmacSigned("HmacSHA256", SECRET, header("hs256", KID), payload)), 401,
                        "invalid_token"),
                refused("an 'alg: none' token with the trailing dot",
                        product(Tokens.unsecured(header("none", KID), payload, true)), 401, "invalid_token"),
                refused("an 'alg: none' token without the trailing dot",
                        product(Tokens.unsecured(header("none", KID), payload, false)), 401, "invalid_token"),
                refused("an 'alg: NONE' token", product(Tokens.unsecured(header("NONE", KID), payload, true)), 401,
                        "invalid_token"),
                refused("an 'alg: None' token", product(Tokens.unsecured(header("None", KID), payload, true)), 401,
                        "invalid_token"),
                refused("an 'alg: none' token that keeps a real HS256 signature",
                        product(Tokens.unsecured(header("none", KID), payload, true) + realSignature), 401,
                        "invalid_token"),
                refused("a token without a key id, signed with the real secret",
                        product(Tokens.hmacSigned("HmacSHA256", SECRET, "{\"alg\":\"HS256\"}", payload)), 401,
                        "invalid_token", "the token's key id is unknown"),
                refused("a token whose key id is path traversal text, signed with the real secret",
                        product(Tokens.hmacSigned("HmacSHA256", SECRET, header("HS256", "../../../../etc/passwd"),
                                payload)),
                        401, "invalid_token", "the token's key id is unknown"),
                refused("a token whose key id is a number, signed with the real secret",
                        product(Tokens.hmacSigned("HmacSHA256", SECRET, "{\"alg\":\"HS256\",\"kid\":42}", payload)),
                        401, "invalid_token"));
    }

    static Stream<Arguments> correctlySignedBadClaims() {
        long now = Instant.now().getEpochSecond();
        return Stream.of(
                refused("a token for another product", product(signed(claims("pid", "7"))), 403, "wrong_product"),
                refused("a token for another user", product(signed(claims("uid", "mallory"))), 403, "wrong_user"),
                refused("a token whose user id has non-ASCII letters ('alïce') under X-User-Id alice",
                        product(signed(claims("uid", "al\u00efce"))), 403, "wrong_user"),
                refused("a token whose typ is not 'wait'", product(signed(claims("typ", "refresh"))), 401,
                        "invalid_token", "the token is not a wait token"),
                refused("a token without typ", product(signed(without("typ"))), 401, "invalid_token"),
                refused("a token whose typ is a number", product(signed(claims("typ", 1))), 401, "invalid_token"),
                refused("a token whose pid is a number", product(signed(claims("pid", 42))), 401, "invalid_token"),
                refused("a token whose pid is an array", product(signed(claims("pid", List.of("42")))), 401,
                        "invalid_token"),
                refused("a token whose uid is a number", product(signed(claims("uid", 7))), 401, "invalid_token"),
                refused("a token whose uid is an array", product(signed(claims("uid", List.of("alice")))), 401,
                        "invalid_token"),
                refused("a token whose uid is null", product(signed(claims("uid", null))), 401, "invalid_token",
                        "the token lacks a required claim"),
                refused("a token whose anon is the string \"false\"", product(signed(claims("anon", "false"))), 401,
                        "invalid_token"),
                refused("a token without exp", product(signed(without("exp"))), 401, "invalid_token",
                        "the token lacks a required claim"),
                refused("a token without iat", product(signed(without("iat"))), 401, "invalid_token",
                        "the token lacks a required claim"),
                refused("a token whose exp has passed", product(signed(claims("exp", now - 3600))), 401,
                        "invalid_token", "the token has expired"),
                refused("a token issued a day in the future", product(signed(claims("iat", now + 86_400))), 401,
                        "invalid_token", "the token was issued in the future"),
                refused("a token whose exp is the string \"never\"", product(signed(claims("exp", "never"))), 401,
                        "invalid_token"),
                refused("a token not valid before tomorrow (nbf)", product(signed(claims("nbf", now + 86_400))), 401,
                        "invalid_token"));
    }

    static Stream<Arguments> hostileHeaders() {
        String good = good();
        String mallorys = Tokens.codec(SECRET).issue("42", "mallory", false);
        String anotherProducts = Tokens.codec(SECRET).issue("7", "alice", false);
        int middle = good.length() / 2;
        return Stream.of(
                refused("two Queue-Token headers, a garbage one first and a valid one second",
                        get(PRODUCT).with("X-User-Id", "alice").with("Queue-Token", "garbage").with("Queue-Token", good),
                        401, "invalid_token"),
                refused("two Queue-Token headers, a valid one first and a garbage one second",
                        get(PRODUCT).with("X-User-Id", "alice").with("Queue-Token", good).with("Queue-Token", "garbage"),
                        401, "invalid_token"),
                refused("two tokens joined by a comma in one Queue-Token header", product(good + ", " + good), 401,
                        "invalid_token"),
                refused("a garbage header token beside a valid cookie (the header wins)",
                        product("garbage").with("Cookie", "queue_token=" + good), 401, "invalid_token"),
                refused("another user's header token beside the caller's valid cookie (the header wins)",
                        product(mallorys).with("Cookie", "queue_token=" + good), 403, "wrong_user"),
                refused("another product's header token beside a valid cookie for this one (the header wins)",
                        product(anotherProducts).with("Cookie", "queue_token=" + good), 403, "wrong_product"),
                refusedClearingCookie("a garbage cookie token", cookie("garbage")),
                refusedClearingCookie("an 'alg: none' cookie token", cookie(Tokens.unsigned("42", "alice"))),
                refusedClearingCookie("an expired cookie token", cookie(Tokens.expired(SECRET, "42", "alice"))),
                refusedClearingCookie("a cookie token re-signed with another key",
                        cookie(Tokens.hs256(OTHER_SECRET, Tokens.hs256Header(SECRET), Tokens.waitClaims("42", "alice")))),
                refused("a valid token behind 'Bearer '", product("Bearer " + good), 401, "invalid_token"),
                refused("a valid token with a space inside",
                        product(good.substring(0, middle) + " " + good.substring(middle)), 401, "invalid_token"),
                refused("a valid token with a tab inside",
                        product(good.substring(0, middle) + "\t" + good.substring(middle)), 401, "invalid_token"),
                refused("a valid token with an escaped CRLF (%0D%0A) inside",
                        product(good.substring(0, middle) + "%0D%0A" + good.substring(middle)), 401,
                        "invalid_token"),
                refused("a valid token folded over two header lines (CRLF and a space, obs-fold)",
                        product(good.substring(0, middle) + "\r\n " + good.substring(middle)).raw(), 401,
                        "invalid_token"),
                refused("a valid token with a NUL byte inside",
                        product(good.substring(0, middle) + "\0" + good.substring(middle)).raw(), ANY_4XX, null),
                refused("a token with UTF-8 letters ('é', 'ü') in its payload",
                        product(good.substring(0, middle) + "\u00e9\u00fc" + good.substring(middle)).raw(), 401,
                        "invalid_token"),
                refused("a token of Cyrillic and emoji only", product("\u043a\u043b\u044e\u0447.\uD83D\uDE00.x").raw(),
                        401, "invalid_token"),
                refused("a 30 KB Queue-Token header", product("x".repeat(30_000)), ANY_4XX, null),
                refused("a Content-Length that is no number", post("/api/products/42/orders")
                        .with("Content-Length", "12abc").raw(), ANY_4XX, null),
                // The first would authenticate and both would reach the shop, which may read the second.
                refused("two Authorization headers", product(good).with("Authorization", "Bearer a.b.c")
                        .with("Authorization", "Bearer d.e.f"), 400, "ambiguous_authorization"),
                refused("two Authorization headers of two schemes", product(good)
                        .with("Authorization", "Basic YWxpY2U6cHc=").with("Authorization", "Bearer d.e.f"), 400,
                        "ambiguous_authorization"),
                refused("two Authorization headers on a route without a queue",
                        get("/elsewhere").with("Authorization", "Bearer a.b.c").with("Authorization", "Bearer d.e.f"),
                        400, "ambiguous_authorization"),
                refused("two Authorization headers on the status endpoint", status(good)
                        .with("Authorization", "Bearer a.b.c").with("Authorization", "Bearer d.e.f"), 400,
                        "ambiguous_authorization"),
                // From the trusted proxy (loopback): an appending proxy, or a client's header beside the proxy's.
                refused("the identity header twice from a trusted proxy",
                        get(PRODUCT).with("X-User-Id", "alice").with("X-User-Id", "bob"), 400, "ambiguous_identity"),
                refused("the identity header twice in two cases from a trusted proxy",
                        get(PRODUCT).with("X-User-Id", "alice").with("x-user-id", "bob"), 400, "ambiguous_identity"),
                refused("two identities joined by a comma in one identity header from a trusted proxy",
                        get(PRODUCT).with("X-User-Id", "alice, bob"), 400, "ambiguous_identity"),
                refused("two identities joined by a comma on a route without a queue",
                        get("/elsewhere").with("X-User-Id", "alice,bob"), 400, "ambiguous_identity"),
                refused("the identity header twice on the status endpoint",
                        status(good).with("X-User-Id", "bob"), 400, "ambiguous_identity"));
    }

    static Stream<Arguments> illegalIds() {
        return Stream.of(
                refused("the product id %00 (a NUL byte)", productId("%00"), 400, "invalid_path"),
                refused("the product id '.'", productId(".").raw(), 400, "invalid_path"),
                refused("the product id '..'", productId("..").raw(), 400, "invalid_path"),
                refused("the product id '%2E%2E' ('..' percent-encoded)", productId("%2E%2E").raw(), 400,
                        "invalid_path"),
                refused("a product id of 65 characters", productId("p".repeat(65)), 400, "invalid_product"),
                refused("the product id 'a b' with a space", productId("a%20b"), 400, "invalid_product"),
                refused("the product id 'a/b' with an encoded slash", productId("a%2Fb"), 400, "invalid_path"),
                refused("the product id '{42}' (a Redis hash tag)", productId("%7B42%7D"), 400, "invalid_product"),
                refused("the product id with an encoded CRLF", productId("42%0D%0AX-Evil:%201"), 400,
                        "invalid_path"),
                refused("the product id '042', outside the route's product-id-pattern", productId("042"), 400,
                        "invalid_product"),
                refused("the product id '42.', outside the route's product-id-pattern", productId("42."), 400,
                        "invalid_product"));
    }

    /**
     * Spellings of a protected path that a normalising shop would read as another path: each is
     * refused before routing, so it can neither dodge {@code complete-on} nor fall through to the
     * catch-all route beside the protected one.
     */
    static Stream<Arguments> pathSpellings() {
        String orders = "/api/products/42/orders";
        return Stream.of(
                refused("an empty segment ('dd//orders')", post("/api/products/42//orders"), 400, "invalid_path"),
                refused("an empty segment at the start ('//api/...')", post("/" + orders), 400, "invalid_path"),
                refused("a trailing slash on a protected path", post(orders + "/"), 400, "invalid_path"),
                refused("a trailing slash on the product page", get(PRODUCT + "/").with("X-User-Id", "alice"), 400,
                        "invalid_path"),
                refused("a '.' segment ('/./orders')", post("/api/products/42/./orders").raw(), 400, "invalid_path"),
                refused("a '..' segment ('/x/../orders')", post("/api/products/42/x/../orders").raw(), 400,
                        "invalid_path"),
                refused("a '..' segment that leaves the protected prefix", get("/api/products/../admin").raw(), 400,
                        "invalid_path"),
                refused("an encoded '/' ('%2F')", post("/api/products/42%2Forders"), 400, "invalid_path"),
                refused("an encoded '/' in lower case ('%2f')", post("/api/products/42%2forders"), 400, "invalid_path"),
                refused("an encoded '.' ('%2E')", post("/api/products/42/%2E/orders"), 400, "invalid_path"),
                refused("an encoded '\\' ('%5C')", post("/api/products/42%5Corders"), 400, "invalid_path"),
                // The HTTP server refuses it before any filter: a 400 of its own.
                refused("a raw '\\'", post("/api/products/42\\orders").raw(), ANY_4XX, null),
                refused("a ';' (matrix parameters)", post(orders + ";x=1"), 400, "invalid_path"),
                refused("an encoded ';' ('%3B')", post(orders + "%3Bx=1"), 400, "invalid_path"),
                refused("a double-encoded '/' ('%252F')", post("/api/products/42%252Forders"), 400, "invalid_path"),
                refused("an encoded NUL in the path", post(orders + "%00"), 400, "invalid_path"),
                refused("a raw tab in the path", get("/api/products/4\t2").raw(), ANY_4XX, null));
    }

    static Stream<Arguments> statusAndLeaveWithBadTokens() {
        String good = good();
        return Stream.of(
                refused("status without any token", get(STATUS).with("X-User-Id", "alice"), 401, "invalid_token"),
                refused("status with a garbage token", status("garbage"), 401, "invalid_token"),
                refused("status with a token cut before its signature",
                        status(good.substring(0, good.lastIndexOf('.') + 1)), 401, "invalid_token"),
                refused("status with an 'alg: none' token", status(Tokens.unsigned("42", "alice")), 401,
                        "invalid_token"),
                refused("status with a token signed HS384 with the real secret",
                        status(Tokens.hmacSigned("HmacSHA384", SECRET, header("HS384", KID),
                                Tokens.json(Tokens.waitClaims("42", "alice")))),
                        401, "invalid_token"),
                refused("status with a correctly signed token whose pid is a number", status(signed(claims("pid", 42))),
                        401, "invalid_token"),
                refused("status with a 10 KB token", status("A".repeat(10_000)), 401, "invalid_token"),
                refused("status with another product's token", status(Tokens.codec(SECRET).issue("7", "alice", false)),
                        403, "wrong_product"),
                refusedClearingCookie("status with a garbage cookie token",
                        get(STATUS).with("X-User-Id", "alice").with("Cookie", "queue_token=garbage")),
                refused("status of the product id %00", get("/queue/%00/status").with("X-User-Id", "alice")
                        .with("Queue-Token", good), 400, "invalid_path"),
                refused("status of a 65-character product id", get("/queue/" + "p".repeat(65) + "/status")
                        .with("X-User-Id", "alice").with("Queue-Token", good), 400, "invalid_product"),
                refused("status with alice's token for the user 'alice{x}' (another id, hashed)",
                        get(STATUS).with("X-User-Id", "alice{x}").with("Queue-Token", good), 403, "wrong_user"),
                refused("leave with a garbage token", new Probe("DELETE", "/queue/42", List.of())
                        .with("X-User-Id", "alice").with("Queue-Token", "garbage"), 401, "invalid_token"),
                refused("leave with a correctly signed token whose uid is an array",
                        new Probe("DELETE", "/queue/42", List.of()).with("X-User-Id", "alice")
                                .with("Queue-Token", signed(claims("uid", List.of("alice")))),
                        401, "invalid_token"));
    }

    // ------------------------------------------------------------------------ case building

    /** A valid token for alice on product 42, issued by the gateway's own codec. */
    private static String good() {
        return Tokens.codec(SECRET).issue("42", "alice", false);
    }

    private static String hs256Header() {
        return header("HS256", KID);
    }

    private static String header(String alg, String kid) {
        return "{\"alg\":\"" + alg + "\",\"kid\":\"" + kid + "\"}";
    }

    /** Alice's claims on product 42 with one claim changed (or set to JSON null). */
    private static Map<String, Object> claims(String name, Object value) {
        Map<String, Object> claims = Tokens.waitClaims("42", "alice");
        claims.put(name, value);
        return claims;
    }

    private static Map<String, Object> without(String name) {
        Map<String, Object> claims = Tokens.waitClaims("42", "alice");
        claims.remove(name);
        return claims;
    }

    /** Signed exactly like the gateway signs (HS256, the real secret and key id). */
    private static String signed(Map<String, Object> claims) {
        return Tokens.hs256(SECRET, Tokens.hs256Header(SECRET), claims);
    }

    private static Probe get(String path) {
        return new Probe("GET", path, List.of());
    }

    /** Alice orders with a valid token, at this spelling of a path. */
    private static Probe post(String path) {
        return new Probe("POST", path, List.of()).with("X-User-Id", "alice").with("Queue-Token", good());
    }

    /** Alice asks for product 42 with this Queue-Token header. */
    private static Probe product(String token) {
        return get(PRODUCT).with("X-User-Id", "alice").with("Queue-Token", token);
    }

    private static Probe status(String token) {
        return get(STATUS).with("X-User-Id", "alice").with("Queue-Token", token);
    }

    private static Probe cookie(String token) {
        return get(PRODUCT).with("X-User-Id", "alice").with("Cookie", "queue_token=" + token);
    }

    private static Probe user(String userId) {
        return get(PRODUCT).with("X-User-Id", userId);
    }

    /** {@code productId} as it goes on the wire (already percent-encoded where it needs to be). */
    private static Probe productId(String productId) {
        return get("/api/products/" + productId).with("X-User-Id", "alice");
    }

    private static Arguments refused(String what, Probe probe, int status, String error) {
        return refused(what, probe, status, error, null);
    }

    private static Arguments refused(String what, Probe probe, int status, String error, String message) {
        return named(what, new Case(probe, status, error, message, false));
    }

    private static Arguments refusedClearingCookie(String what, Probe probe) {
        return named(what, new Case(probe, 401, "invalid_token", null, true));
    }

    /** Names the case as a sentence: what is sent, then what the gateway must answer. */
    private static Arguments named(String what, Case hostile) {
        String verdict = hostile.status() == ANY_4XX ? " is refused by the server with a 4xx"
                : " is refused with " + hostile.status() + " " + hostile.error();
        return Arguments.of(Named.of(what + verdict + (hostile.clearsCookie() ? " and the cookie cleared" : ""),
                hostile));
    }

    /**
     * @param status the expected status, or {@link #ANY_4XX}
     * @param error the expected {@code error} code, or {@code null} when the server answers itself
     * @param message the expected {@code message}, when it names the flaw the case is about
     * @param clearsCookie whether the answer must drop the {@code queue_token} cookie
     */
    record Case(Probe probe, int status, String error, String message, boolean clearsCookie) {
    }

    /**
     * One request; {@code bytewise} ones (made with {@code raw()}) are written byte for byte (UTF-8) on a socket, for what an
     * HTTP client library would refuse or re-encode (non-ASCII, folded lines, NUL, {@code ..}).
     */
    record Probe(String method, String path, List<String[]> headers, boolean bytewise) {

        Probe(String method, String path, List<String[]> headers) {
            this(method, path, headers, false);
        }

        Probe with(String name, String value) {
            List<String[]> more = new ArrayList<>(headers);
            more.add(new String[] { name, value });
            return new Probe(method, path, List.copyOf(more), bytewise);
        }

        Probe raw() {
            return new Probe(method, path, headers, true);
        }
    }

    record Answer(int status, HttpHeaders headers, String body) {
    }

    // ------------------------------------------------------------------------------ checking

    private void check(Case hostile) {
        Answer answer = send(hostile.probe());
        SoftAssertions softly = new SoftAssertions();
        softly.assertThat(answer.status()).as("never a 5xx; body %s", answer.body()).isLessThan(500);
        if (hostile.status() == ANY_4XX) {
            softly.assertThat(answer.status()).as("a 4xx; body %s", answer.body()).isBetween(400, 499);
        }
        else {
            softly.assertThat(answer.status()).as("status; body %s", answer.body()).isEqualTo(hostile.status());
        }
        if (hostile.error() != null) {
            softly.assertThat(String.valueOf(answer.headers().getContentType())).as("content type")
                    .startsWith(MediaType.APPLICATION_JSON_VALUE);
            softly.assertThat(jsonField(answer.body(), "$.error")).as("error code").isEqualTo(hostile.error());
            softly.assertThat(jsonField(answer.body(), "$.message")).as("message").isNotBlank();
            if (hostile.message() != null) {
                softly.assertThat(jsonField(answer.body(), "$.message")).as("message").isEqualTo(hostile.message());
            }
        }
        if (hostile.clearsCookie()) {
            softly.assertThat(answer.headers().getOrEmpty(HttpHeaders.SET_COOKIE)).as("the cookie is cleared")
                    .anySatisfy(cookie -> assertThat(cookie).startsWith("queue_token=;").contains("Max-Age=0"));
        }
        List<String> forwarded = fixture.backend().findAll(anyRequestedFor(anyUrl())).stream()
                .map(LoggedRequest::getUrl).toList();
        softly.assertThat(forwarded).as("requests the shop received").isEmpty();
        softly.assertThat(fixture.keysLeft()).as("keys left in Redis").isEmpty();
        softly.assertAll();
    }

    private static String jsonField(String body, String path) {
        try {
            Object value = JsonPath.read(body, path);
            return value == null ? null : value.toString();
        }
        catch (RuntimeException notJson) {
            return "<no " + path + " in " + body + ">";
        }
    }

    private Answer send(Probe probe) {
        return probe.bytewise() ? sendRaw(probe) : sendWithClient(probe);
    }

    private Answer sendWithClient(Probe probe) {
        EntityExchangeResult<byte[]> result = fixture.client().method(HttpMethod.valueOf(probe.method()))
                .uri(URI.create(fixture.gateway().baseUrl() + probe.path()))
                .headers(headers -> probe.headers().forEach(header -> headers.add(header[0], header[1])))
                .exchange()
                .expectBody()
                .returnResult();
        byte[] body = result.getResponseBodyContent();
        return new Answer(result.getStatus().value(), result.getResponseHeaders(),
                body == null ? "" : new String(body, StandardCharsets.UTF_8));
    }

    /** HTTP/1.1 on a plain socket, {@code Connection: close}, read to the end. */
    private Answer sendRaw(Probe probe) {
        try (Socket socket = new Socket("127.0.0.1", fixture.gateway().port())) {
            socket.setSoTimeout(10_000);
            StringBuilder request = new StringBuilder()
                    .append(probe.method()).append(' ').append(probe.path()).append(" HTTP/1.1\r\n")
                    .append("Host: localhost:").append(fixture.gateway().port()).append("\r\n");
            probe.headers().forEach(header -> request.append(header[0]).append(": ").append(header[1]).append("\r\n"));
            request.append("Connection: close\r\n\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            return parse(readAll(socket.getInputStream()));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int read; (read = in.read(buffer)) != -1;) {
                all.write(buffer, 0, read);
            }
        }
        catch (java.net.SocketException reset) {
            // A server that refuses a request may reset the connection after its answer.
            if (all.size() == 0) {
                throw reset;
            }
        }
        return all.toByteArray();
    }

    private static Answer parse(byte[] response) {
        String text = new String(response, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        assertThat(end).as("a complete HTTP answer: %s", text).isPositive();
        String[] lines = text.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        HttpHeaders headers = new HttpHeaders();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.add(lines[i].substring(0, colon).trim(), lines[i].substring(colon + 1).trim());
        }
        String body = text.substring(end + 4);
        if ("chunked".equalsIgnoreCase(headers.getFirst(HttpHeaders.TRANSFER_ENCODING))) {
            body = unchunk(body);
        }
        return new Answer(status, headers, new String(body.getBytes(StandardCharsets.ISO_8859_1),
                StandardCharsets.UTF_8));
    }

    private static String unchunk(String chunked) {
        StringBuilder body = new StringBuilder();
        int at = 0;
        while (true) {
            int lineEnd = chunked.indexOf("\r\n", at);
            int size = Integer.parseInt(chunked.substring(at, lineEnd).split(";")[0].trim(), 16);
            if (size == 0) {
                return body.toString();
            }
            body.append(chunked, lineEnd + 2, lineEnd + 2 + size);
            at = lineEnd + 2 + size + 2;
        }
    }
}
