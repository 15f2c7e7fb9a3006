package io.queuegate.paths;

import java.util.List;
import java.util.Map;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.jayway.jsonpath.JsonPath;
import io.queuegate.support.GatewayFixture;
import io.queuegate.support.LooseShop;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.HttpMethod;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The attacker's spellings of a protected path, behind the route set docs/deployment.md shows (the
 * protected product route and a catch-all {@code Path=/**} route) and in front of a shop that reads
 * paths as Express, ASP.NET and Rails do: letter case ignored, a format suffix ({@code .json})
 * routed to the same action. Another spelling that reaches another route is sent to the protected
 * route's own spelling (a GET or HEAD, 308) or refused ({@code 400 noncanonical_path}); one that
 * reaches the protected route is served as it (queued, completing). None reaches the shop out of
 * turn, and one admission buys once whatever the order's spelling.
 */
class OtherSpellingsTest {

    private static final String PRODUCT = "/api/products/10";

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1", "session-ttl", "10m",
                    "complete-on", "POST /api/products/{productId}/orders", "product-id-pattern", "[1-9][0-9]*"))
            .withOpenRoute("everything-else", "/**");

    @BeforeEach
    void shopReadsPathsLoosely() {
        LooseShop.readsPathsLoosely(fixture.backend());
    }

    @Test
    void aWaitingShopperIsSentToTheProtectedSpellingOfAGetInAnotherLetterCase() {
        admitted("alice");
        String bob = waiting("bob");

        assertRedirected(HttpMethod.GET, "/API/products/10", bob, "/api/products/10");
        assertRedirected(HttpMethod.GET, "/Api/Products/10/orders", bob, "/api/products/10/orders");
        assertRedirected(HttpMethod.HEAD, "/api/PRODUCTS/10", bob, "/api/products/10");
        assertRedirected(HttpMethod.GET, "/API/products/10?colour=red", bob, "/api/products/10?colour=red");
        assertRedirected(HttpMethod.GET, "/API/products/10/", bob, "/api/products/10");
        assertRedirected(HttpMethod.GET, "/API/products/10.json", bob, "/api/products/10.json");

        assertThat(shopSaw()).as("only alice reached the shop").containsExactly(PRODUCT);
    }

    @Test
    void aWebSocketUpgradeInAnotherLetterCaseNeverReachesTheShop() {
        admitted("alice");
        String bob = waiting("bob");
        EntityExchangeResult<String> answer = fixture.client().get().uri("/API/products/10/ws")
                .header("X-User-Id", "bob").header("Queue-Token", bob)
                .header("Connection", "Upgrade").header("Upgrade", "websocket")
                .header("Sec-WebSocket-Version", "13").header("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
                .exchange().expectBody(String.class).returnResult();
        assertThat(answer.getStatus().value()).as(answer.getResponseBody()).isEqualTo(308);
        assertThat(shopSaw()).containsExactly(PRODUCT);
    }

    @Test
    void everyOtherMethodInAnotherSpellingIsRefused() {
        admitted("alice");
        String bob = waiting("bob");

        assertRefused(HttpMethod.POST, "/Api/Products/10/orders", bob);
        assertRefused(HttpMethod.POST, "/API/products/10/orders.json", bob);
        assertRefused(HttpMethod.PUT, "/api/Products/10", bob);
        assertRefused(HttpMethod.DELETE, "/API/products/10/", bob);
        assertRefused(HttpMethod.PATCH, "/api/Products/10/ORDERS/", bob);

        assertThat(shopSaw()).containsExactly(PRODUCT);
    }

    @Test
    void theRedirectLeadsToTheProtectedRouteWhichQueues() {
        admitted("alice");
        String bob = waiting("bob");
        String location = send(HttpMethod.GET, "/API/Products/10", bob).getResponseHeaders().getLocation().toString();
        EntityExchangeResult<String> followed = send(HttpMethod.GET, location, bob);
        assertThat(followed.getStatus().value()).isEqualTo(429);
        assertThat((Integer) JsonPath.read(followed.getResponseBody(), "$.rank")).isEqualTo(1);
    }

    @Test
    void aFormatSuffixOnTheProductIdIsTheSameProduct() {
        admitted("alice");
        EntityExchangeResult<String> suffixed = fixture.client().get().uri("/api/products/10.json")
                .header("X-User-Id", "bob").exchange().expectBody(String.class).returnResult();
        assertThat(suffixed.getStatus().value()).as(suffixed.getResponseBody()).isEqualTo(429);
        assertThat((String) JsonPath.read(suffixed.getResponseBody(), "$.productId")).isEqualTo("10");
        assertThat(shopSaw()).containsExactly(PRODUCT);
    }

    @Test
    void oneAdmissionBuysOnceWhateverTheOrdersSpelling() {
        String alice = admitted("alice");

        assertThat(order("/api/products/10/ORDERS", alice).getStatus().value()).isEqualTo(201);
        for (String spelling : List.of("/api/products/10/Orders", "/api/products/10/orders.json",
                "/api/products/10/orders.xml", "/api/products/10/orders")) {
            EntityExchangeResult<String> again = order(spelling, alice);
            assertThat(again.getStatus().value()).as("%s: %s", spelling, again.getResponseBody()).isEqualTo(409);
            assertThat((String) JsonPath.read(again.getResponseBody(), "$.error")).isEqualTo("session_ended");
        }
        assertThat(shopSaw()).containsExactly(PRODUCT, "/api/products/10/ORDERS");
        assertThat(fixture.redis().commands().zrange("qg:{10}:active", 0, -1)).isEmpty();
    }

    @Test
    void anOrderWithAFormatSuffixCompletesTheSession() {
        String alice = admitted("alice");
        String bob = waiting("bob");

        assertThat(order("/api/products/10/orders.json", alice).getStatus().value()).isEqualTo(201);
        assertThat(order("/api/products/10/orders", alice).getStatus().value()).isEqualTo(409);
        assertThat(fixture.redis().commands().zrange("qg:{10}:active", 0, -1)).containsExactly("bob");
        assertThat(send(HttpMethod.GET, PRODUCT, bob).getStatus().value()).isEqualTo(200);
    }

    private static String admitted(String user) {
        EntityExchangeResult<String> answer = fixture.client().get().uri(PRODUCT).header("X-User-Id", user)
                .exchange().expectBody(String.class).returnResult();
        assertThat(answer.getStatus().value()).as(answer.getResponseBody()).isEqualTo(200);
        return answer.getResponseHeaders().getFirst("Queue-Token");
    }

    private static String waiting(String user) {
        EntityExchangeResult<String> answer = fixture.client().get().uri(PRODUCT).header("X-User-Id", user)
                .exchange().expectBody(String.class).returnResult();
        assertThat(answer.getStatus().value()).as(answer.getResponseBody()).isEqualTo(429);
        return answer.getResponseHeaders().getFirst("Queue-Token");
    }

    private static EntityExchangeResult<String> send(HttpMethod method, String path, String bobsToken) {
        WebTestClient.RequestBodySpec request = fixture.client().method(method).uri(path).header("X-User-Id", "bob")
                .header("Queue-Token", bobsToken);
        return request.exchange().expectBody(String.class).returnResult();
    }

    private static EntityExchangeResult<String> order(String path, String token) {
        return fixture.client().post().uri(path).header("X-User-Id", "alice").header("Queue-Token", token)
                .bodyValue("{\"quantity\":1}").exchange().expectBody(String.class).returnResult();
    }

    private static void assertRedirected(HttpMethod method, String path, String token, String location) {
        EntityExchangeResult<String> answer = send(method, path, token);
        assertThat(answer.getStatus().value()).as("%s %s: %s", method, path, answer.getResponseBody()).isEqualTo(308);
        assertThat(answer.getResponseHeaders().getFirst("Location")).as("%s %s", method, path).isEqualTo(location);
    }

    private static void assertRefused(HttpMethod method, String path, String token) {
        EntityExchangeResult<String> answer = send(method, path, token);
        assertThat(answer.getStatus().value()).as("%s %s: %s", method, path, answer.getResponseBody()).isEqualTo(400);
        assertThat((String) JsonPath.read(answer.getResponseBody(), "$.error")).isEqualTo("noncanonical_path");
    }

    private static List<String> shopSaw() {
        return fixture.backend().findAll(anyRequestedFor(anyUrl())).stream().map(LoggedRequest::getUrl).toList();
    }
}
