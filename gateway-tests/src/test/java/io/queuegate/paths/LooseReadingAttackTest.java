package io.queuegate.paths;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.jayway.jsonpath.JsonPath;
import io.queuegate.support.GatewayFixture;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.LooseShop;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.HttpMethod;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Attacks on the loose reading of paths, methods and headers that the gateway holds, behind the
 * route set docs/deployment.md shows (the protected product route, then a catch-all
 * {@code Path=/**}) and in front of {@link LooseShop}, on two gateway instances sharing one Redis.
 * Each test is one attacker's spelling and what must happen to it: refused before routing, sent to
 * the protected spelling, queued, or read as the completing request. Escapes and formats are
 * {@link EscapesAndFormatsAttackTest}.
 */
class LooseReadingAttackTest {

    private static final String PRODUCT = "/api/products/10";
    private static final String ORDERS = "/api/products/10/orders";

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1", "session-ttl", "10m",
                    "complete-on", "POST /api/products/{productId}/orders", "product-id-pattern", "[1-9][0-9]*"))
            // The product route's predicate exactly as docs/deployment.md writes it.
            .with("spring.cloud.gateway.server.webflux.routes[0].predicates[0]", "Path=/api/products/{productId}/**")
            .withOpenRoute("everything-else", "/**")
            .with("queuegate.products.30.stock", "3")
            .instances(2);

    @BeforeEach
    void shopReadsPathsLoosely() {
        LooseShop.readsPathsLoosely(fixture.backend());
    }

    /**
     * Encoded separators, dots and percents, matrix parameters ({@code ;jsessionid=}), empty and dot
     * segments, backslashes: a shop normalising any of them would act on a path no route saw. All
     * are refused before routing, whichever route they would reach, for a waiting shopper's GET and
     * for an order from nobody.
     */
    @Test
    void pathsAShopWouldNormaliseAreRefusedBeforeRouting() {
        admitted("alice");
        String bob = waiting("bob");
        List<String> spellings = List.of(
                "/api/%70roducts%2F10", "/api/products/10%2Forders", "/api/products/%2e/10",
                "/api/products/10/orders%2Ejson", "/api/products/10/orders%2ejson", "/api/products/%2E%2E/products/10",
                "/api/products/10/orders%252Ejson", "/api/products/10%3Bjsessionid=abc",
                "/api/products/10;jsessionid=abc", "/api/products;v=1/10", "/api/products/10/orders;format=json",
                "/api//products/10", "/api/products//10/orders", "//api/products/10",
                "/api/products/../products/10", "/api/products/./10", "/api/x/../products/10/orders",
                "/api/products/10/orders/.", "/api/products/10/orders/..",
                "/api%5Cproducts/10", "/api/products/10/orders%00", "/api/products/10/orders%7F",
                "/api/products/10/orders%5C");
        for (String spelling : spellings) {
            for (HttpMethod method : List.of(HttpMethod.GET, HttpMethod.POST)) {
                EntityExchangeResult<String> answer = send(method, spelling, "bob", method == HttpMethod.GET ? bob : null);
                assertThat(answer.getStatus().value()).as("%s %s: %s", method, spelling, answer.getResponseBody())
                        .isEqualTo(400);
                assertThat((String) JsonPath.read(answer.getResponseBody(), "$.error"))
                        .as("%s %s", method, spelling).isEqualTo("invalid_path");
            }
        }
        assertThat(shopSaw()).containsExactly(PRODUCT);
    }

    /**
     * Percent-encoded letters in the protected route's own case decode to its path: Spring Cloud
     * Gateway's Path predicate matches the decoded path, so they reach the protected route and queue,
     * and an encoded order is the order.
     */
    @Test
    void encodedLettersInTheRoutesOwnCaseAreTheProtectedPath() {
        String alice = admitted("alice");
        String bob = waiting("bob");

        for (String spelling : List.of("/api/%70roducts/10", "/%61pi/products/10", "/api/products/1%30",
                "/api/products/%31%30.json")) {
            EntityExchangeResult<String> answer = send(HttpMethod.GET, spelling, "bob", bob);
            assertThat(answer.getStatus().value()).as("%s: %s", spelling, answer.getResponseBody()).isEqualTo(429);
            assertThat((String) JsonPath.read(answer.getResponseBody(), "$.productId")).isEqualTo("10");
        }

        // WireMock does not decode, so it answers the "page below the product" 200: a 2xx, a sale.
        assertThat(send(HttpMethod.POST, "/api/products/10/%6Frders", "alice", alice).getStatus().is2xxSuccessful())
                .isTrue();
        assertSessionEnded(send(HttpMethod.POST, ORDERS, "alice", alice));
    }

    /**
     * Another letter case with an encoded letter after the protected prefix (in the product id,
     * below it): the catch-all took it, and it is still sent to the protected spelling or refused.
     */
    @Test
    void encodedLettersAfterThePrefixInAnotherCaseAreStillTheProtectedPath() {
        admitted("alice");
        String bob = waiting("bob");

        EntityExchangeResult<String> page = send(HttpMethod.GET, "/API/products/1%30", "bob", bob);
        assertThat(page.getStatus().value()).as(page.getResponseBody()).isEqualTo(308);
        assertThat(page.getResponseHeaders().getFirst("Location")).isEqualTo("/api/products/1%30");
        assertRefused(send(HttpMethod.POST, "/API/products/10/%4Frders", "mallory", null));
        assertRefused(send(HttpMethod.POST, "/api/Products/10/orders.js%4Fn", "mallory", null));

        assertThat(shopSaw()).containsExactly(PRODUCT);
    }

    /** An upper-case format suffix, on the order and in a mix of cases, is the order. */
    @Test
    void anUpperCaseSuffixIsTheOrder() {
        for (String spelling : List.of(ORDERS + ".JSON", "/api/products/10/ORDERS.Json", "/api/products/10/Orders.XmL")) {
            fixture.redis().flushAll();
            fixture.gateway(0).forgetRedis();
            String alice = admitted("alice");
            assertThat(send(HttpMethod.POST, spelling, "alice", alice).getStatus().value()).as(spelling).isEqualTo(201);
            for (String again : List.of(ORDERS, ORDERS + ".json", "/api/products/10/ORDERS")) {
                assertSessionEnded(send(HttpMethod.POST, again, "alice", alice));
            }
        }
    }

    /**
     * A product id with a suffix in upper case, on a path in another case: {@code /API/products/10.JSON}
     * is sent to the protected spelling, which is product 10 and queues.
     */
    @Test
    void aSuffixedProductIdInAnotherCaseIsSentToTheLine() {
        admitted("alice");
        String bob = waiting("bob");

        EntityExchangeResult<String> moved = send(HttpMethod.GET, "/API/products/10.JSON", "bob", bob);
        assertThat(moved.getStatus().value()).as(moved.getResponseBody()).isEqualTo(308);
        String location = moved.getResponseHeaders().getFirst("Location");
        assertThat(location).isEqualTo("/api/products/10.JSON");

        EntityExchangeResult<String> followed = send(HttpMethod.GET, location, "bob", bob);
        assertThat(followed.getStatus().value()).isEqualTo(429);
        assertThat((String) JsonPath.read(followed.getResponseBody(), "$.productId")).isEqualTo("10");
        assertRefused(send(HttpMethod.POST, "/API/products/10.JSON/orders", "mallory", null));
        assertThat(shopSaw()).containsExactly(PRODUCT);
    }

    /**
     * A product page with a format Rails would route (its format segment is {@code [^/.?]+}: digits,
     * an encoded letter, a second dot, nothing at all): never forwarded to a waiting shopper. The
     * product id pattern refuses what is not product 10, the rest is product 10 and queues.
     */
    @Test
    void aRailsFormatOnTheProductPageIsNeverForwardedOutOfTurn() {
        admitted("alice");
        String bob = waiting("bob");

        for (String spelling : List.of("/api/products/10.1", "/api/products/10.j%73on", "/api/products/10.json.xml",
                "/api/products/10.", "/api/products/10.x-json", "/api/products/10.JSON/reviews")) {
            EntityExchangeResult<String> answer = send(HttpMethod.GET, spelling, "bob", bob);
            assertThat(answer.getStatus().value()).as("%s: %s", spelling, answer.getResponseBody()).isIn(400, 429);
        }
        assertThat(shopSaw()).containsExactly(PRODUCT);
    }

    /** GET, HEAD and OPTIONS of a waiting shopper are all queued; none reaches the shop. */
    @Test
    void everyMethodOfAWaitingShopperWaits() {
        admitted("alice");
        String bob = waiting("bob");

        for (HttpMethod method : List.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS, HttpMethod.valueOf("get"))) {
            assertThat(send(method, PRODUCT, "bob", bob).getStatus().value()).as("%s", method).isEqualTo(429);
        }
        assertThat(send(HttpMethod.HEAD, "/API/products/10", "bob", bob).getStatus().value()).isEqualTo(308);
        assertRefused(send(HttpMethod.OPTIONS, "/API/products/10", "bob", bob));
        assertThat(shopSaw()).containsExactly(PRODUCT);
    }

    /**
     * A method spelled in lower case ({@code post}) is the order: a shop that reads the method in any
     * case sells, so the session must end.
     */
    @Test
    void aLowerCaseMethodIsTheOrder() {
        String alice = admitted("alice");

        EntityExchangeResult<String> first = send(HttpMethod.valueOf("post"), ORDERS, "alice", alice);
        assertThat(first.getStatus().is2xxSuccessful()).as(first.getResponseBody()).isTrue();
        assertSessionEnded(send(HttpMethod.POST, ORDERS, "alice", alice));
        assertSessionEnded(send(HttpMethod.valueOf("Post"), ORDERS + ".json", "alice", alice));
        assertThat(shopSaw()).containsExactly(PRODUCT, ORDERS);
    }

    /**
     * A GET on the order's path with a method override header in any spelling a backend reads: the
     * shop sees none of them, so it cannot take the GET for a POST that never completed.
     */
    @Test
    void methodOverrideHeadersNeverReachTheShopOnTheProtectedRoute() {
        String alice = admitted("alice");

        for (String header : List.of("X-HTTP-Method-Override", "x-http-method-override", "X_HTTP_Method_Override",
                "X-HTTP-Method", "x_http_method", "X-Method-Override", "X_METHOD_OVERRIDE", "x-method_override")) {
            fixture.client().get().uri(ORDERS).header("X-User-Id", "alice").header("Queue-Token", alice)
                    .header(header, "POST").exchange().expectStatus().isOk();
        }
        for (LoggedRequest seen : fixture.backend().findAll(anyRequestedFor(anyUrl()))) {
            assertThat(seen.getHeaders().keys()).as("headers of %s", seen.getUrl())
                    .noneMatch(name -> name.replace('_', '-').toLowerCase().matches("x-(http-)?method(-override)?"));
        }
        assertThat(fixture.redis().commands().zrange("qg:{10}:active", 0, -1)).containsExactly("alice");
    }

    /**
     * A refused order (303 back to the cart) ends the session as a leave: the same token cannot then
     * order again once the shop starts saying yes, and the stock is untouched.
     */
    @Test
    void aRedirectThenASuccessDoesNotBuyOnTheSameAdmission() {
        LooseShop.redirectsRefusedOrders(fixture.backend());
        String alice = admitted("alice", "30");
        String bob = waiting("bob", "30");

        EntityExchangeResult<String> refused = send(HttpMethod.POST, "/api/products/30/orders", "alice", alice);
        assertThat(refused.getStatus().value()).isEqualTo(303);
        LooseShop.readsPathsLoosely(fixture.backend());

        for (String spelling : List.of("/api/products/30/orders", "/api/products/30/orders.json")) {
            EntityExchangeResult<String> again = send(HttpMethod.POST, spelling, "alice", alice);
            assertThat(again.getStatus().is2xxSuccessful()).as("%s: %s %s", spelling, again.getStatus(),
                    again.getResponseBody()).isFalse();
        }
        assertThat(fixture.redis().commands().hget("qg:{30}:settings", "stock")).isEqualTo("3");
        assertThat(send(HttpMethod.GET, "/api/products/30", "bob", bob).getStatus().value()).isEqualTo(200);
        assertThat(shopSaw()).containsExactly("/api/products/30", "/api/products/30/orders", "/api/products/30");
    }

    /**
     * A shopper replays {@code Queue-Stock} and {@code Queue-Release} from an old answer of the shop as
     * request headers, in several spellings: the gateway reads them from the shop's answers only,
     * and the shop never sees them.
     */
    @Test
    void aReplayedStockOrReleaseHeaderChangesNothing() {
        String alice = admitted("alice", "30");
        for (String[] header : List.of(new String[] {"Queue-Stock", "100"}, new String[] {"queue-stock", "0"},
                new String[] {"Queue-Release", "true"})) {
            fixture.client().get().uri("/api/products/30").header("X-User-Id", "alice").header("Queue-Token", alice)
                    .header(header[0], header[1]).exchange().expectStatus().isOk();
        }
        assertThat(fixture.redis().commands().hget("qg:{30}:settings", "stock")).isEqualTo("3");
        assertThat(fixture.redis().commands().zrange("qg:{30}:active", 0, -1)).containsExactly("alice");
        for (LoggedRequest seen : fixture.backend().findAll(anyRequestedFor(anyUrl()))) {
            assertThat(seen.getHeaders().keys()).noneMatch(name -> name.toLowerCase().startsWith("queue-"));
        }
    }

    /**
     * The order spelled two ways at once on two gateway instances, the shop slow to answer: the
     * completion is claimed once across instances, so the shop sees one order per admission.
     */
    @Test
    void twoSpellingsOfTheOrderOnTwoInstancesAtOnceBuyOnce() throws Exception {
        fixture.backend().stubFor(post(urlPathMatching("(?i)/api/products/[^/.]+/orders(\\.[a-z]+)?")).atPriority(1)
                .willReturn(aResponse().withStatus(201).withFixedDelay(400)));
        List<String[]> pairs = List.of(new String[] {ORDERS, "/api/products/10/ORDERS"},
                new String[] {"/api/products/10/Orders", ORDERS + ".json"},
                new String[] {ORDERS + ".XML", "/api/products/10/oRdErS"});
        for (int round = 0; round < pairs.size(); round++) {
            String user = "buyer" + round;
            String token = admitted(user);
            CyclicBarrier start = new CyclicBarrier(2);
            List<CompletableFuture<Integer>> orders = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                GatewayInstance gateway = fixture.gateway(i);
                String path = pairs.get(round)[i];
                orders.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        start.await();
                    }
                    catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    return gateway.client().post().uri(path).header("X-User-Id", user).header("Queue-Token", token)
                            .bodyValue("{}").exchange().expectBody(String.class).returnResult().getStatus().value();
                }));
            }
            List<Integer> statuses = orders.stream().map(CompletableFuture::join).sorted().toList();
            assertThat(statuses).as("round %d", round).containsExactly(201, 409);
        }
        long ordersSeen = shopSaw().stream().filter(url -> url.toLowerCase().contains("/orders")).count();
        assertThat(ordersSeen).isEqualTo(pairs.size());
    }

    /**
     * A WebSocket upgrade in another case, with a suffix on its last segment: sent to the protected
     * spelling, never proxied by the catch-all. On the protected route (which takes no WebSockets)
     * an odd-case upgrade is refused before any place is made.
     */
    @Test
    void aWebSocketUpgradeInAnotherCaseWithASuffixEndsAtTheRedirect() {
        admitted("alice");
        String bob = waiting("bob");

        Map<String, String> moves = Map.of("/API/products/10/ws.JSON", "/api/products/10/ws.JSON",
                "/Api/Products/10/WS", "/api/products/10/WS", "/api/PRODUCTS/10/ws/", "/api/products/10/ws");
        moves.forEach((spelling, location) -> {
            EntityExchangeResult<String> answer = upgrade(spelling, bob);
            assertThat(answer.getStatus().value()).as("%s: %s", spelling, answer.getResponseBody()).isEqualTo(308);
            assertThat(answer.getResponseHeaders().getFirst("Location")).isEqualTo(location);
        });
        EntityExchangeResult<String> onRoute = upgrade("/api/products/10/WS.json", bob);
        assertThat(onRoute.getStatus().value()).isEqualTo(400);
        assertThat((String) JsonPath.read(onRoute.getResponseBody(), "$.error")).isEqualTo("websocket_not_allowed");
        assertThat(shopSaw()).containsExactly(PRODUCT);
    }

    private static EntityExchangeResult<String> upgrade(String path, String token) {
        return fixture.client().get().uri(URI.create(fixture.gateway().baseUrl() + path))
                .header("X-User-Id", "bob").header("Queue-Token", token)
                .header("Connection", "Upgrade").header("Upgrade", "WebSocket")
                .header("Sec-WebSocket-Version", "13").header("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
                .exchange().expectBody(String.class).returnResult();
    }

    private static String admitted(String user) {
        return admitted(user, "10");
    }

    private static String admitted(String user, String product) {
        EntityExchangeResult<String> answer = send(HttpMethod.GET, "/api/products/" + product, user, null);
        assertThat(answer.getStatus().value()).as(answer.getResponseBody()).isEqualTo(200);
        return answer.getResponseHeaders().getFirst("Queue-Token");
    }

    private static String waiting(String user) {
        return waiting(user, "10");
    }

    private static String waiting(String user, String product) {
        EntityExchangeResult<String> answer = send(HttpMethod.GET, "/api/products/" + product, user, null);
        assertThat(answer.getStatus().value()).as(answer.getResponseBody()).isEqualTo(429);
        return answer.getResponseHeaders().getFirst("Queue-Token");
    }

    /** The path is sent exactly as written: a String URI would be re-encoded by the client. */
    private static EntityExchangeResult<String> send(HttpMethod method, String path, String user, String token) {
        WebTestClient.RequestBodySpec request = fixture.client().method(method)
                .uri(URI.create(fixture.gateway().baseUrl() + path)).header("X-User-Id", user);
        if (token != null) {
            request.header("Queue-Token", token);
        }
        if (method.name().equalsIgnoreCase("POST")) {
            request.bodyValue("{\"quantity\":1}");
        }
        return request.exchange().expectBody(String.class).returnResult();
    }

    private static void assertRefused(EntityExchangeResult<String> answer) {
        assertThat(answer.getStatus().value()).as(answer.getResponseBody()).isEqualTo(400);
        assertThat((String) JsonPath.read(answer.getResponseBody(), "$.error")).isEqualTo("noncanonical_path");
    }

    private static void assertSessionEnded(EntityExchangeResult<String> answer) {
        assertThat(answer.getStatus().value()).as(answer.getResponseBody()).isEqualTo(409);
        assertThat((String) JsonPath.read(answer.getResponseBody(), "$.error")).isEqualTo("session_ended");
    }

    private static List<String> shopSaw() {
        return fixture.backend().findAll(anyRequestedFor(anyUrl())).stream().map(LoggedRequest::getUrl).toList();
    }
}
