package io.queuegate.web;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import io.queuegate.support.GatewayFixture;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.Tokens;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpHeaders;
import org.springframework.test.web.reactive.server.EntityExchangeResult;

import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The running gateway marks the token cookie {@code Secure} when the trusted proxy in front of
 * it (the tests' loopback) says the shopper came over TLS, and only then: the gateway itself
 * speaks plain HTTP here, as it does behind a TLS-terminating ingress. Of several token cookies
 * on one request (a browser sends every cookie of the name whose path matches, one planted with
 * a longer path first), one that verifies is read and the others are ignored, never cleared.
 */
class TokenCookieTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1"));

    @Test
    void theCookieIsSecureWhenTheTrustedProxyTerminatedTls() {
        assertThat(tokenCookie("alice", "https")).contains("queue_token=").contains("; Secure");
        // Waiting answers set the cookie too.
        assertThat(tokenCookie("bob", "https")).contains("queue_token=").contains("; Secure");
    }

    @Test
    void theCookieIsNotSecureOverPlainHttp() {
        assertThat(tokenCookie("alice", null)).contains("queue_token=").doesNotContain("; Secure");
        assertThat(tokenCookie("bob", "http")).contains("queue_token=").doesNotContain("; Secure");
    }

    private static String tokenCookie(String user, String forwardedProto) {
        List<String> cookies = fixture.client().get().uri("/api/products/42")
                .headers(headers -> {
                    headers.set("X-User-Id", user);
                    if (forwardedProto != null) {
                        headers.set("X-Forwarded-Proto", forwardedProto);
                    }
                })
                .exchange()
                .returnResult(String.class)
                .getResponseHeaders()
                .getOrEmpty(HttpHeaders.SET_COOKIE);
        assertThat(cookies).as("Set-Cookie for %s", user).hasSize(1);
        return cookies.get(0);
    }

    /**
     * Someone plants {@code queue_token=garbage} with a longer path (a sibling subdomain's cookie,
     * a script on another page of the site): the browser sends it beside the real one, before it.
     * The shopper is still served as the real token's holder, and the real cookie stays.
     */
    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void aPlantedGarbageCookieNeitherShadowsNorClearsTheRealOne(boolean plantedFirst) {
        EntityExchangeResult<byte[]> admitted = fixture.client().get().uri("/api/products/42").exchange()
                .expectStatus().isOk().expectBody().returnResult();
        String token = admitted.getResponseHeaders().getFirst("Queue-Token");
        String holder = Tokens.codec(GatewayInstance.SECRET).verify(token).userId();
        String cookies = plantedFirst ? "queue_token=garbage; queue_token=" + token
                : "queue_token=" + token + "; queue_token=garbage";

        EntityExchangeResult<byte[]> again = fixture.client().get().uri("/api/products/42").header("Cookie", cookies)
                .exchange().expectBody().returnResult();
        assertThat(again.getStatus().value()).as("the holder's place, not a 401").isEqualTo(200);
        assertThat(clearedCookies(again)).isEmpty();
        fixture.backend().verify(2, getRequestedFor(urlPathEqualTo("/api/products/42")));

        EntityExchangeResult<byte[]> status = fixture.client().get().uri("/queue/42/status").header("Cookie", cookies)
                .exchange().expectBody().returnResult();
        assertThat(status.getStatus().value()).isEqualTo(200);
        assertThat(JsonPath.<String>read(body(status), "$.userId")).isEqualTo(holder);
        assertThat(JsonPath.<String>read(body(status), "$.status")).isEqualTo("ACTIVE");
        assertThat(clearedCookies(status)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void aWaitingShopperWithAPlantedCookieKeepsTheirRankAndIsHandedTheirOwnToken(boolean plantedFirst) {
        fixture.client().get().uri("/api/products/42").header("X-User-Id", "alice").exchange().expectStatus().isOk();
        String token = fixture.client().get().uri("/api/products/42").header("X-User-Id", "bob").exchange()
                .expectStatus().isEqualTo(429).expectBody().returnResult().getResponseHeaders().getFirst("Queue-Token");
        String cookies = plantedFirst ? "queue_token=garbage; queue_token=" + token
                : "queue_token=" + token + "; queue_token=garbage";

        EntityExchangeResult<byte[]> waiting = fixture.client().get().uri("/api/products/42")
                .header("X-User-Id", "bob").header("Cookie", cookies).exchange().expectBody().returnResult();

        assertThat(waiting.getStatus().value()).isEqualTo(429);
        assertThat(waiting.getResponseHeaders().getFirst("Queue-Rank")).isEqualTo("1");
        assertThat(waiting.getResponseHeaders().getFirst("Queue-Token")).as("never the planted value")
                .isNotEqualTo("garbage");
        assertThat(clearedCookies(waiting)).isEmpty();
        assertThat(fixture.redis().commands().zcard("qg:{42}:active")).as("alice alone holds the place").isEqualTo(1);
    }

    /**
     * Another product's valid cookie planted beside the real one (an attacker's own, lending its
     * anonymous id) does not shadow this product's either.
     */
    @Test
    void thisProductsCookieWinsOverAnotherProductsPlantedBeforeIt() {
        String token = fixture.client().get().uri("/api/products/42").exchange().expectStatus().isOk()
                .expectBody().returnResult().getResponseHeaders().getFirst("Queue-Token");
        String planted = fixture.client().get().uri("/api/products/7").exchange().expectStatus().isOk()
                .expectBody().returnResult().getResponseHeaders().getFirst("Queue-Token");
        String holder = Tokens.codec(GatewayInstance.SECRET).verify(token).userId();

        EntityExchangeResult<byte[]> status = fixture.client().get().uri("/queue/42/status")
                .header("Cookie", "queue_token=" + planted + "; queue_token=" + token).exchange().expectBody()
                .returnResult();

        assertThat(status.getStatus().value()).isEqualTo(200);
        assertThat(JsonPath.<String>read(body(status), "$.userId")).isEqualTo(holder);
    }

    /** With no cookie that verifies, the rule of one bad cookie holds: refused, and the cookie cleared. */
    @Test
    void severalCookiesOfWhichNoneVerifiesAreRefusedAsOneIs() {
        EntityExchangeResult<byte[]> refused = fixture.client().get().uri("/api/products/42")
                .header("Cookie", "queue_token=garbage; queue_token=" + Tokens.expired(
                        GatewayInstance.SECRET, "42", "alice"))
                .exchange().expectBody().returnResult();

        assertThat(refused.getStatus().value()).isEqualTo(401);
        assertThat(JsonPath.<String>read(body(refused), "$.error")).isEqualTo("invalid_token");
        assertThat(clearedCookies(refused)).hasSize(1);
    }

    /** The answer's {@code Set-Cookie}s that drop the token cookie. */
    private static List<String> clearedCookies(EntityExchangeResult<byte[]> answer) {
        return answer.getResponseHeaders().getOrEmpty(HttpHeaders.SET_COOKIE).stream()
                .filter(cookie -> cookie.startsWith("queue_token=;") || cookie.startsWith("queue_token=")
                        && cookie.contains("Max-Age=0"))
                .toList();
    }

    private static String body(EntityExchangeResult<byte[]> answer) {
        return new String(answer.getResponseBodyContent(), StandardCharsets.UTF_8);
    }
}
