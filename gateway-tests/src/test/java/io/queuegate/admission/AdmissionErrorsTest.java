package io.queuegate.admission;

import java.net.URI;

import java.util.Map;

import io.queuegate.support.GatewayFixture;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.Tokens;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every error row of the HTTP contract, through the running gateway: answered as JSON by the
 * gateway and never forwarded to the shop.
 */
class AdmissionErrorsTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1"));

    @AfterEach
    void nothingWasForwarded() {
        fixture.backend().verify(0, anyRequestedFor(anyUrl()));
    }

    @ParameterizedTest
    @ValueSource(strings = { "garbage", "a.b.c", "eyJhbGciOiJIUzI1NiJ9.e30.", "" })
    void refusesGarbageTokens(String token) {
        expectError(request("42", "alice", token), HttpStatus.UNAUTHORIZED, "invalid_token");
    }

    @Test
    void refusesATokenSignedWithAnotherSecret() {
        String forged = Tokens.codec("another-secret-that-is-long-enough-for-hs256-xyz").issue("42", "alice", false);
        expectError(request("42", "alice", forged), HttpStatus.UNAUTHORIZED, "invalid_token")
                .jsonPath("$.message").isEqualTo("the token's key id is unknown");
    }

    @Test
    void refusesATamperedToken() {
        String valid = Tokens.codec(GatewayInstance.SECRET).issue("42", "alice", false);
        expectError(request("42", "mallory", Tokens.tampered(valid, "mallory")), HttpStatus.UNAUTHORIZED,
                "invalid_token").jsonPath("$.message").isEqualTo("the token's signature does not match");
    }

    @Test
    void refusesAnUnsignedToken() {
        expectError(request("42", "alice", Tokens.unsigned("42", "alice")), HttpStatus.UNAUTHORIZED, "invalid_token");
    }

    @Test
    void refusesAnExpiredToken() {
        expectError(request("42", "alice", Tokens.expired(GatewayInstance.SECRET, "42", "alice")),
                HttpStatus.UNAUTHORIZED, "invalid_token").jsonPath("$.message").isEqualTo("the token has expired");
    }

    @Test
    void aBadCookieTokenIsRefusedAndTheCookieCleared() {
        WebTestClient.ResponseSpec response = fixture.client().get().uri("/api/products/42").header("X-User-Id", "alice")
                .cookie("queue_token", "garbage").exchange();
        response.expectHeader().value(HttpHeaders.SET_COOKIE, cookie -> assertThat(cookie).contains("Max-Age=0"));
        expectError(response, HttpStatus.UNAUTHORIZED, "invalid_token");
    }

    @Test
    void refusesAnotherProductsToken() {
        String other = Tokens.codec(GatewayInstance.SECRET).issue("7", "alice", false);
        expectError(request("42", "alice", other), HttpStatus.FORBIDDEN, "wrong_product");
        expectError(fixture.client().get().uri("/queue/42/status").header("X-User-Id", "alice").header("Queue-Token", other)
                .exchange(), HttpStatus.FORBIDDEN, "wrong_product");
    }

    @Test
    void refusesAnotherUsersToken() {
        String alices = Tokens.codec(GatewayInstance.SECRET).issue("42", "alice", false);
        expectError(request("42", "mallory", alices), HttpStatus.FORBIDDEN, "wrong_user");
        // A signed-in user's token cannot be used without the sign-in either.
        expectError(request("42", null, alices), HttpStatus.FORBIDDEN, "wrong_user");
    }

    @Test
    void refusesAnAnonymousTokenUnderAUserId() {
        String anonymous = Tokens.codec(GatewayInstance.SECRET).issue("42", "anon-abc", true);
        expectError(request("42", "anon-abc", anonymous), HttpStatus.FORBIDDEN, "wrong_user");
    }

    /** On the wire as given: the client must not encode the percent signs again. */
    @ParameterizedTest
    @ValueSource(strings = { "bad$id", "with%20space", "%7Bx%7D",
            "a123456789012345678901234567890123456789012345678901234567890123456789" })
    void refusesBadProductIds(String productId) {
        expectError(fixture.client().get().uri(URI.create(fixture.gateway().baseUrl() + "/api/products/" + productId))
                .header("X-User-Id", "alice").exchange(), HttpStatus.BAD_REQUEST, "invalid_product");
        expectError(fixture.client().get()
                        .uri(URI.create(fixture.gateway().baseUrl() + "/queue/" + productId + "/status"))
                        .header("Queue-Token", "x").exchange(),
                HttpStatus.BAD_REQUEST, "invalid_product");
        assertThat(fixture.keysLeft()).isEmpty();
    }

    @Test
    void aPathWithAnEncodedPercentIsRefusedBeforeItsProductIdIsRead() {
        // The client library encodes '%' once more: "%2520" is a double encoding.
        expectError(request("with%20space", "alice", null), HttpStatus.BAD_REQUEST, "invalid_path");
        assertThat(fixture.keysLeft()).isEmpty();
    }

    @Test
    void refusesOversizedHeadersWithA4xx() {
        fixture.client().get().uri("/api/products/42").header("X-User-Id", "alice").header("Queue-Token", "x".repeat(20_000))
                .exchange().expectStatus().is4xxClientError();
        fixture.client().get().uri("/api/products/42").header("X-User-Id", "alice").header("Queue-Token", "x".repeat(4_000))
                .exchange().expectStatus().isUnauthorized();
        assertThat(fixture.keysLeft()).isEmpty();
    }

    private WebTestClient.ResponseSpec request(String productId, String user, String token) {
        WebTestClient.RequestHeadersSpec<?> spec = fixture.client().get().uri("/api/products/" + productId);
        if (user != null) {
            spec = spec.header("X-User-Id", user);
        }
        if (token != null) {
            spec = spec.header("Queue-Token", token);
        }
        return spec.exchange();
    }

    private static WebTestClient.BodyContentSpec expectError(WebTestClient.ResponseSpec response, HttpStatus status,
            String code) {
        return response.expectStatus().isEqualTo(status)
                .expectHeader().contentType(MediaType.APPLICATION_JSON)
                .expectBody()
                .jsonPath("$.error").isEqualTo(code)
                .jsonPath("$.message").isNotEmpty();
    }
}
