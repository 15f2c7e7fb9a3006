package io.queuegate.admission;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import io.queuegate.support.GatewayFixture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpStatus;

import reactor.core.publisher.Flux;

import static com.github.tomakehurst.wiremock.client.WireMock.absent;
import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What crosses the gateway, on protected and open routes alike: the waiting room's credentials
 * and its private headers never reach the shop, the shop's {@code Queue-Release} never reaches
 * the client, and a body of undeclared length cannot slip past the size limit.
 */
class ForwardedRequestTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "5"))
            .withOpenRoute("open", "/open/**")
            // A catch-all route behind them, as docs/deployment.md sets one up.
            .withOpenRoute("everything-else", "/**")
            .with("queuegate.max-body-size", "1KB")
            .with("spring.cloud.gateway.server.webflux.globalcors.cors-configurations.[/**].allowed-origins",
                    "https://shop.example")
            .with("spring.cloud.gateway.server.webflux.globalcors.cors-configurations.[/**].exposed-headers",
                    "X-Shop-Trace");

    @Test
    void theQueueCookieAndPrivateHeadersNeverReachTheShopOnAnyRoute() {
        String token = fixture.client().get().uri("/api/products/42").header("X-User-Id", "alice").exchange()
                .expectStatus().isOk().expectBody().returnResult().getResponseHeaders().getFirst("Queue-Token");
        fixture.backend().resetRequests();
        for (String path : new String[] { "/api/products/42", "/open/page" }) {
            fixture.client().get().uri(path).header("X-User-Id", "alice").header("Queue-Token", token)
                    .header("Cookie", "shop_cart=c1; queue_token=" + token + "; theme=dark")
                    .header("Queue-Release", "true").header("Queue-Challenge", "e30=").header("Queue-Invite", "x.y.z")
                    .exchange().expectStatus().isOk().expectBody().returnResult();
            fixture.backend().verify(1, getRequestedFor(urlPathEqualTo(path))
                    .withHeader("Cookie", equalTo("shop_cart=c1; theme=dark"))
                    .withHeader("Queue-Token", absent()).withHeader("Queue-Release", absent())
                    .withHeader("Queue-Challenge", absent()).withHeader("Queue-Invite", absent()));
        }
        // A client's Queue-Release is not the shop's: alice still holds her place.
        assertThat(fixture.redis().commands().zrange("qg:{42}:active", 0, -1)).containsExactly("alice");
    }

    /**
     * {@code complete-on} compares the method the gateway sees; a shop that honours a method
     * override header would act on another one, so on protected routes those headers never
     * reach it. Open routes are none of the waiting room's business: they keep them.
     */
    @Test
    void methodOverrideHeadersNeverReachTheShopOnAProtectedRoute() {
        for (String path : new String[] { "/api/products/42", "/open/page" }) {
            fixture.client().get().uri(path).header("X-User-Id", "alice")
                    .header("X-HTTP-Method-Override", "POST").header("X-HTTP-Method", "POST")
                    .header("X-Method-Override", "POST")
                    .exchange().expectStatus().isOk().expectBody().returnResult();
        }
        fixture.backend().verify(1, getRequestedFor(urlPathEqualTo("/api/products/42"))
                .withHeader("X-HTTP-Method-Override", absent()).withHeader("X-HTTP-Method", absent())
                .withHeader("X-Method-Override", absent()));
        fixture.backend().verify(1, getRequestedFor(urlPathEqualTo("/open/page"))
                .withHeader("X-HTTP-Method-Override", equalTo("POST")).withHeader("X-HTTP-Method", equalTo("POST"))
                .withHeader("X-Method-Override", equalTo("POST")));
    }

    /**
     * Rack (Rails), PHP and CGI servers hand a shop {@code X_HTTP_Method_Override} as
     * {@code HTTP_X_HTTP_METHOD_OVERRIDE}, the very name they read {@code X-HTTP-Method-Override}
     * by: on a protected route no header whose name folds to a method override header's
     * ({@code _} for {@code -}, any case) reaches the shop, alone or beside the usual spelling.
     */
    @ParameterizedTest
    @ValueSource(strings = { "X_HTTP_Method_Override", "x_http_method_override", "X-HTTP_Method-Override",
            "x-http-method_override", "x-HTTP-method-OVERRIDE", "X_HTTP_METHOD", "x-http_method", "X_Method_Override",
            "X-METHOD_OVERRIDE" })
    void noSpellingOfAMethodOverrideHeaderReachesTheShopOnAProtectedRoute(String spelling) {
        fixture.backend().resetRequests();
        fixture.client().get().uri("/api/products/42").header("X-User-Id", "alice").header(spelling, "POST")
                .exchange().expectStatus().isOk().expectBody().returnResult();
        assertThat(methodOverrideHeaders("/api/products/42")).as("%s alone", spelling).isEmpty();

        fixture.backend().resetRequests();
        fixture.client().get().uri("/api/products/42").header("X-User-Id", "alice")
                .header("X-HTTP-Method-Override", "POST").header(spelling, "POST")
                .exchange().expectStatus().isOk().expectBody().returnResult();
        assertThat(methodOverrideHeaders("/api/products/42")).as("%s beside X-HTTP-Method-Override", spelling)
                .isEmpty();
    }

    /** Every header the shop received for {@code path} that Rack, PHP or CGI would read as a method override. */
    private static List<String> methodOverrideHeaders(String path) {
        List<LoggedRequest> received = fixture.backend().findAll(getRequestedFor(urlPathEqualTo(path)));
        assertThat(received).hasSize(1);
        List<String> overrides = List.of("x-http-method-override", "x-http-method", "x-method-override");
        return received.get(0).getHeaders().all().stream()
                .filter(header -> overrides.contains(header.key().replace('_', '-').toLowerCase(Locale.ROOT)))
                .map(header -> header.key() + ": " + header.values())
                .toList();
    }

    /**
     * CGI, WSGI, Rack and PHP hand a shop its request headers as {@code HTTP_X_USER_ID}: every
     * spelling that folds to the identity header's name ({@code _} for {@code -}, any case) is
     * the identity header to such a shop. None but the one the gateway decided reaches it, on a
     * protected route or an open one, whether or not a trusted proxy also wrote the real one.
     */
    @ParameterizedTest
    @ValueSource(strings = { "X_User_Id", "x_user_id", "X-USER_ID", "X_USER-ID", "x-user_id" })
    void noOtherSpellingOfTheIdentityHeaderReachesTheShop(String spelling) {
        for (String path : new String[] { "/api/products/42", "/open/page" }) {
            fixture.backend().resetRequests();
            fixture.client().get().uri(path).header(spelling, "admin").exchange().expectStatus().isOk()
                    .expectBody().returnResult();
            assertThat(identityHeaders(path)).as("anonymous on %s", path).isEmpty();

            fixture.backend().resetRequests();
            fixture.client().get().uri(path).header("X-User-Id", "alice").header(spelling, "admin").exchange()
                    .expectStatus().isOk().expectBody().returnResult();
            assertThat(identityHeaders(path)).as("alice on %s", path).containsExactly("X-User-Id: alice");
        }
    }

    /** Every header the shop received for {@code path} that such a shop would read as the identity. */
    private static List<String> identityHeaders(String path) {
        List<LoggedRequest> received = fixture.backend().findAll(getRequestedFor(urlPathEqualTo(path)));
        assertThat(received).hasSize(1);
        return received.get(0).getHeaders().all().stream()
                .filter(header -> header.key().replace('_', '-').toLowerCase(Locale.ROOT).equals("x-user-id"))
                .flatMap(header -> header.values().stream().map(value -> header.key() + ": " + value))
                .toList();
    }

    @Test
    void aShopPageOnAnotherOriginCanReadTheWaitingAnswersHeaders() {
        fixture.client().get().uri("/api/products/42").header("X-User-Id", "alice").exchange().expectStatus().isOk();
        fixture.client().get().uri("/api/products/42").header("X-User-Id", "bob").exchange().expectStatus().isOk();
        String exposed = fixture.client().get().uri("/api/products/7").header("X-User-Id", "carol")
                .header("Origin", "https://shop.example").exchange()
                .expectHeader().valueEquals("Access-Control-Allow-Origin", "https://shop.example")
                .expectBody().returnResult().getResponseHeaders().getFirst("Access-Control-Expose-Headers");
        assertThat(exposed).contains("X-Shop-Trace").contains("Queue-Token").contains("Queue-Rank")
                .contains("Retry-After").contains("Queue-Come-Back-By");
    }

    @Test
    void aCookieHeaderHoldingOnlyTheQueueCookieIsDroppedWhole() {
        fixture.client().get().uri("/open/page").header("Cookie", "queue_token=abc").exchange().expectStatus().isOk()
                .expectBody().returnResult();
        fixture.backend().verify(1, getRequestedFor(urlPathEqualTo("/open/page")).withHeader("Cookie", absent()));
    }

    @Test
    void theShopsQueueReleaseIsTakenOffItsAnswerOnEveryRoute() {
        fixture.backend().stubFor(get(urlPathEqualTo("/open/released")).willReturn(aResponse().withStatus(200)
                .withHeader("Queue-Release", "true").withBody("done")));
        fixture.client().get().uri("/open/released").exchange().expectStatus().isOk()
                .expectHeader().doesNotExist("Queue-Release");
    }

    @Test
    void aChunkedBodyOverTheLimitIsCutOffWithContentTooLarge() {
        fixture.client().get().uri("/api/products/42").header("X-User-Id", "alice").exchange().expectStatus().isOk();
        byte[] kilobyte = "x".repeat(1024).getBytes();
        // Four chunks of 1 KB and no Content-Length: only counting as it streams can see the size.
        Flux<DataBuffer> body = Flux.range(0, 4).map(i -> DefaultDataBufferFactory.sharedInstance.wrap(kilobyte));
        fixture.client().post().uri("/api/products/42/orders").header("X-User-Id", "alice")
                .body(body, DataBuffer.class).exchange()
                .expectStatus().isEqualTo(HttpStatus.CONTENT_TOO_LARGE)
                .expectBody().jsonPath("$.error").isEqualTo("content_too_large");
        assertThat(fixture.backend().findAll(anyRequestedFor(anyUrl())))
                .noneMatch(request -> request.getUrl().endsWith("/orders") && request.getBody().length > 1024);
    }

    @Test
    void aChunkedBodyWithinTheLimitGoesThrough() {
        fixture.client().get().uri("/api/products/42").header("X-User-Id", "alice").exchange().expectStatus().isOk();
        Flux<DataBuffer> body = Flux.range(0, 3).map(i -> DefaultDataBufferFactory.sharedInstance.wrap("abc".getBytes()));
        fixture.client().post().uri("/api/products/42/orders").header("X-User-Id", "alice")
                .body(body, DataBuffer.class).exchange().expectStatus().isCreated();
    }
}
