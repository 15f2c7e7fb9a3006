package io.queuegate.routes;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.queuegate.promotion.SlotExpiryListener;
import io.queuegate.support.GatewayFixture;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;

import com.github.tomakehurst.wiremock.client.WireMock;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cloud.gateway.event.RefreshRoutesEvent;
import org.springframework.cloud.gateway.handler.predicate.PredicateDefinition;
import org.springframework.cloud.gateway.route.RouteDefinition;
import org.springframework.cloud.gateway.route.RouteDefinitionWriter;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.http.HttpStatus;

import reactor.core.publisher.Mono;

import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A route's {@code queue} block is checked before the gateway serves its first request, and again
 * whenever routes change at runtime: a bad block in the configuration stops the start, naming the
 * route and the field; a bad block in a route added later answers 503 and is never forwarded
 * unqueued; a route added later with a strategy nobody used yet gets its listeners. Two protected
 * routes that can serve one product must agree on the rules stored for it: at startup they stop the
 * start, naming both; a route added later that disagrees with one that serves answers 503, and the
 * one that served goes on as it was.
 */
@ExtendWith(OutputCaptureExtension.class)
class RouteValidationTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1", "promotion", "pubsub"));

    private static RedisProcess redis;
    /** Gateways that started: closed after the last test, since closing one stops the others' loops. */
    private static final List<GatewayInstance> gateways = new ArrayList<>();

    @BeforeAll
    static void startRedis() {
        redis = RedisProcess.start();
    }

    @AfterAll
    static void stopRedis() {
        GatewayInstance.closeAll(gateways);
        redis.close();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "promotion | carrier-pigeon | route 'products' has an invalid queue block",
            "max-active | 0           | max-active must be at least 1",
            "session-ttl | 0s         | session-ttl must be at least 1s",
            "complete-on | /orders    | complete-on must look like",
            "product-id-pattern | [0-9 | product-id-pattern is not a regular expression",
            "display-name | Limited sneakers of the winter drop, numbered and signed by the designer herself!! | display-name must be at most 80 characters",
            "invites | required       | invites is required, but no invitation key is configured: set queuegate.invites.secret",
            "invites | priority       | invites is priority, but no invitation key is configured",
            "invites | sometimes      | route 'products' has an invalid queue block",
    })
    void aBadBlockStopsTheStartBeforeTheServerServesAnything(String field, String value, String message) {
        Map<String, Object> properties = new HashMap<>(
                GatewayInstance.defaults(redis, "http://localhost:1", Map.of(field, value)));
        assertThatThrownBy(() -> GatewayInstance.start(properties).close())
                .satisfies(error -> assertThat(messagesOf(error)).contains(message))
                // Once every bean exists, before the context's lifecycle starts the web server.
                .hasStackTraceContaining("afterSingletonsInstantiated");
    }

    @Test
    void aQueueEntryThatIsNotABlockIsABadBlockNotAnUnprotectedRoute() {
        Map<String, Object> properties = new HashMap<>(GatewayInstance.defaults(redis, "http://localhost:1", Map.of()));
        properties.put("spring.cloud.gateway.server.webflux.routes[0].metadata.queue", "true");
        assertThatThrownBy(() -> GatewayInstance.start(properties).close())
                .satisfies(error -> assertThat(messagesOf(error)).contains("'queue' entry that is not a block"));
    }

    @Test
    void aConfiguredProductNoRoutesPatternAcceptsIsWarnedAboutAtStartup(CapturedOutput output) {
        Map<String, Object> properties = new HashMap<>(GatewayInstance.defaults(redis, "http://localhost:1",
                Map.of("max-active", "1", "product-id-pattern", "[1-9][0-9]*")));
        properties.put("queuegate.products.winter-drop.max-active", "200");
        properties.put("queuegate.products.42.max-active", "2");
        gateways.add(GatewayInstance.start(properties));
        assertThat(output.getOut()).contains("queuegate.products.winter-drop: no protected route takes this product id "
                        + "(route 'products' takes ids matching [1-9][0-9]*), so these settings apply to no request")
                .doesNotContain("queuegate.products.42:");
    }

    @Test
    void twoRoutesThatCanServeOneProductWithOtherRulesStopTheStartNamingBoth() {
        Map<String, Object> properties = new HashMap<>(GatewayInstance.defaults(redis, "http://localhost:1",
                Map.of("max-active", "1")));
        String checkout = "spring.cloud.gateway.server.webflux.routes[1].";
        properties.put(checkout + "id", "checkout");
        properties.put(checkout + "uri", "http://localhost:1");
        properties.put(checkout + "predicates[0]", "Path=/checkout/{productId}");
        properties.put(checkout + "metadata.queue.max-active", "50");
        properties.put(checkout + "metadata.queue.session-ttl", "1h");
        // Read per request: the routes may differ in these.
        properties.put(checkout + "metadata.queue.join-challenge", "pow");
        properties.put(checkout + "metadata.queue.complete-on", "POST /checkout/{productId}");

        // Kept, not closed, should it start: closing a gateway stops the others' loops.
        assertThatThrownBy(() -> gateways.add(GatewayInstance.start(properties)))
                .satisfies(error -> assertThat(messagesOf(error))
                        .contains("route 'checkout': it can serve the same product ids as route 'products' with other "
                                + "rules: max-active (50 on 'checkout', 1 on 'products'), session-ttl (1h on "
                                + "'checkout', 10m on 'products')")
                        .contains("route 'products': it can serve the same product ids as route 'checkout'")
                        .doesNotContain("join-challenge").doesNotContain("complete-on ("))
                .hasStackTraceContaining("afterSingletonsInstantiated");
    }

    @Test
    void routesWhoseProductIdsCannotMeetMayHaveTheirOwnRules() {
        Map<String, Object> properties = new HashMap<>(GatewayInstance.defaults(redis, "http://localhost:1",
                Map.of("max-active", "1", "product-id-pattern", "P[0-9]+")));
        String drops = "spring.cloud.gateway.server.webflux.routes[1].";
        properties.put(drops + "id", "drops");
        properties.put(drops + "uri", "http://localhost:1");
        properties.put(drops + "predicates[0]", "Path=/drops/{productId}");
        properties.put(drops + "metadata.queue.max-active", "50");
        properties.put(drops + "metadata.queue.product-id-pattern", "D[0-9]+");
        gateways.add(GatewayInstance.start(properties));
    }

    /**
     * The attack: a route added later with a max-active of its own would store it for the product,
     * and let in through itself (and then through the first route) more shoppers than the first allows.
     */
    @Test
    void aRouteAddedAtRuntimeThatDisagreesWithOneThatServesIsRefusedAndTheOtherGoesOn(CapturedOutput output) {
        fixture.client().get().uri("/api/products/77").header("X-User-Id", "alice").exchange()
                .expectStatus().isOk();

        add("rival", "/rival/{productId}/**", Map.of("max-active", "1000"));

        fixture.client().get().uri("/rival/77/page").header("X-User-Id", "bob").exchange()
                .expectStatus().isEqualTo(HttpStatus.SERVICE_UNAVAILABLE)
                .expectBody().jsonPath("$.error").isEqualTo("queue_misconfigured");
        fixture.client().get().uri("/api/products/77").header("X-User-Id", "bob").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
        fixture.client().get().uri("/api/products/77").header("X-User-Id", "alice").exchange()
                .expectStatus().isOk();
        fixture.backend().verify(0, getRequestedFor(WireMock.urlPathMatching("/rival/.*")));
        assertThat(output.getOut() + output.getErr()).contains("QueueGate refuses route 'rival': it can serve the same "
                + "product ids as route 'products' with other rules: max-active (1000 on 'rival', 1 on 'products')");
    }

    @Test
    void aRouteAddedAtRuntimeIsProtectedAtOnce() {
        add("drop", "/drop/{productId}/**", Map.of("max-active", "1"));
        fixture.backend().stubFor(WireMock.get("/drop/9/page")
                .willReturn(WireMock.ok("the drop's page")));
        fixture.client().get().uri("/drop/9/page").header("X-User-Id", "alice").exchange()
                .expectStatus().isOk(); // forwarded: alice was let through
        fixture.client().get().uri("/drop/9/page").header("X-User-Id", "bob").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS).expectHeader().valueEquals("Queue-Rank", "1");
    }

    @Test
    void aRouteAddedAtRuntimeWithABadBlockAnswers503AndIsNeverForwarded() {
        add("broken", "/broken/{productId}/**", Map.of("max-active", "0"));
        add("not-a-block", "/odd/{productId}/**", "yes");
        // Invitations asked for, with no key to check one: nobody could join, or everybody would.
        add("presale", "/presale/{productId}/**", Map.of("max-active", "5", "invites", "required"));
        for (String path : List.of("/broken/9/page", "/odd/9/page", "/presale/9/page")) {
            fixture.client().get().uri(path).header("X-User-Id", "alice").exchange()
                    .expectStatus().isEqualTo(HttpStatus.SERVICE_UNAVAILABLE)
                    .expectBody().jsonPath("$.error").isEqualTo("queue_misconfigured");
        }
        fixture.backend().verify(0, getRequestedFor(anyUrl()));
    }

    @Test
    void aRouteAddedAtRuntimeWithANewStrategyGetsItsListeners() {
        SlotExpiryListener expiries = fixture.gateway().bean(SlotExpiryListener.class);
        assertThat(expiries.isRunning()).as("no route used keyspace at startup").isFalse();
        add("timed", "/timed/{productId}/**", Map.of("max-active", "1", "promotion", "keyspace"));
        Awaitility.await().untilAsserted(() -> assertThat(expiries.isRunning()).isTrue());
        assertThat(fixture.redis().commands().configGet("notify-keyspace-events").get("notify-keyspace-events"))
                .contains("E").contains("x");
    }

    /** Adds a route through Spring Cloud Gateway's own route repository and refreshes the routes. */
    private static void add(String id, String path, Object queue) {
        RouteDefinition route = new RouteDefinition();
        route.setId(id);
        route.setUri(URI.create(fixture.backend().baseUrl()));
        route.setPredicates(List.of(new PredicateDefinition("Path=" + path)));
        route.setMetadata(Map.of("queue", queue));
        fixture.gateway().bean(RouteDefinitionWriter.class).save(Mono.just(route)).block();
        fixture.gateway().publish(new RefreshRoutesEvent(route));
        RouteLocator routes = fixture.gateway().bean(RouteLocator.class);
        Awaitility.await().until(() -> routes.getRoutes().any(added -> added.getId().equals(id)).block());
    }

    private static String messagesOf(Throwable error) {
        StringBuilder messages = new StringBuilder();
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            messages.append(cause.getMessage()).append('\n');
        }
        return messages.toString();
    }
}
