package io.queuegate.paths;

import java.util.List;
import java.util.Map;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.jayway.jsonpath.JsonPath;
import io.queuegate.support.GatewayFixture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.HttpMethod;
import org.springframework.test.web.reactive.server.EntityExchangeResult;

import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A trailing {@code /} is refused on protected routes that the route probe before routing could
 * not see: a weighted route ({@code Weight=} only matches once Spring Cloud Gateway's weight
 * filter has drawn the request's route), and a protected route whose own pattern matches only
 * the spelling with the slash. Each spelling would otherwise reach the shop: as an ordinary
 * request that misses {@code complete-on}, or through the catch-all route.
 */
class TrailingSlashRoutesTest {

    private static final String PRODUCTS = "spring.cloud.gateway.server.webflux.routes[0].";

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "5",
                    "complete-on", "POST /api/products/{productId}/orders"))
            // The product route of every test, in a weight group (the only route of its group: always drawn).
            .with(PRODUCTS + "predicates[1]", "Weight=shop,90")
            // Weighted too, and its Path does not match a trailing slash: that spelling goes to the catch-all.
            .withRoute("checkout", Map.of("predicates[0]", "Path=/api/checkout/{productId},false",
                    "predicates[1]", "Weight=checkout,90", "metadata.queue.max-active", "5"))
            // Protected, and reached only with the slash: the path without it reaches no protected route.
            .withRoute("legacy", Map.of("predicates[0]", "Path=/legacy/{productId}/",
                    "metadata.queue.max-active", "5"))
            .withOpenRoute("everything-else", "/**");

    @Test
    void anOrderWithATrailingSlashOnAWeightedProtectedRouteIsRefused() {
        assertRefused(HttpMethod.POST, "/api/products/42/orders/");
        assertRefused(HttpMethod.GET, "/api/products/42/");
    }

    @Test
    void aTrailingSlashThatWouldFallThroughToTheCatchAllIsRefusedWhenTheWeightedRouteWouldTakeThePath() {
        assertRefused(HttpMethod.GET, "/api/checkout/42/");
    }

    @Test
    void aTrailingSlashIsRefusedOnTheProtectedRouteThatMatchedIt() {
        assertRefused(HttpMethod.GET, "/legacy/42/");
    }

    @Test
    void theWeightedRoutesStillServeTheirPathsAndTheCatchAllKeepsItsTrailingSlashes() {
        fixture.client().get().uri("/api/products/42").header("X-User-Id", "alice").exchange()
                .expectStatus().isOk();
        fixture.client().post().uri("/api/products/42/orders").header("X-User-Id", "alice").exchange()
                .expectStatus().isCreated();
        fixture.client().get().uri("/open/docs/").exchange().expectStatus().isOk();
        assertThat(fixture.backend().findAll(anyRequestedFor(anyUrl())).stream().map(LoggedRequest::getUrl))
                .containsExactly("/api/products/42", "/api/products/42/orders", "/open/docs/");
    }

    private static void assertRefused(HttpMethod method, String path) {
        EntityExchangeResult<String> answer = fixture.client().method(method).uri(path)
                .header("X-User-Id", "alice").exchange()
                .expectBody(String.class).returnResult();
        assertThat(answer.getStatus().value()).as("%s %s: %s", method, path, answer.getResponseBody()).isEqualTo(400);
        String body = answer.getResponseBody();
        assertThat((String) JsonPath.read(body, "$.error")).isEqualTo("invalid_path");
        assertThat((String) JsonPath.read(body, "$.message"))
                .isEqualTo("the path may not end with '/' on a protected route; each path has one spelling here "
                        + "(no '//', '.', '..', encoded separators)");
        List<String> forwarded = fixture.backend().findAll(anyRequestedFor(anyUrl())).stream()
                .map(LoggedRequest::getUrl).toList();
        assertThat(forwarded).as("requests the shop received").isEmpty();
    }
}
