package io.queuegate.web;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.queuegate.admission.InMemoryAdmission;
import io.queuegate.events.Decision;
import io.queuegate.events.QueueEvents;
import io.queuegate.identity.ClientAddresses;
import io.queuegate.identity.TrustedProxies;
import io.queuegate.routes.RouteQueuePolicies;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.context.support.ResourceBundleMessageSource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.http.HttpStatus;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The admission filter without a gateway: a mock exchange on a queued route, the admission
 * decision against the in-memory store, and a chain standing in for the shop. What reaches the
 * shop, what the shopper is answered, and what the shop's answer does to the session.
 */
@ExtendWith(OutputCaptureExtension.class)
class QueueAdmissionFilterTest {

    private final InMemoryAdmission admission = new InMemoryAdmission();
    /** The events the filter reports, in order: what metrics and the audit log hear. */
    private final List<String> events = new ArrayList<>();
    private final List<ServerWebExchange> forwarded = new ArrayList<>();
    private final QueueAdmissionFilter filter;
    private final Route queued = Route.async().id("products").uri(URI.create("http://shop.internal"))
            .predicate(exchange -> true)
            .metadata(Map.of("queue", Map.of("max-active", "1", "complete-on", "POST /api/products/{productId}/orders")))
            .build();
    private final Route open = Route.async().id("open").uri(URI.create("http://shop.internal"))
            .predicate(exchange -> true).build();
    private final Route guarded = Route.async().id("guarded").uri(URI.create("http://shop.internal"))
            .predicate(exchange -> true).metadata(Map.of("queue", Map.of("join-challenge", "anonymous"))).build();
    /** Added at runtime with a queue block that is no block: a startup with it would not start. */
    private final Route broken = Route.async().id("broken").uri(URI.create("http://shop.internal"))
            .predicate(exchange -> true).metadata(Map.of("queue", "yes")).build();
    private final Route forgiving = Route.async().id("forgiving").uri(URI.create("http://shop.internal"))
            .predicate(exchange -> true).metadata(Map.of("queue", Map.of("on-redis-failure", "open"))).build();

    QueueAdmissionFilterTest() {
        ResourceBundleMessageSource messages = new ResourceBundleMessageSource();
        messages.setBasenames("queuegate/messages");
        messages.setDefaultEncoding("UTF-8");
        QueueResponses responses = new QueueResponses(new JsonMapper(),
                new WaitingPage(new ClassPathResource("queuegate/waiting-page.html"),
                        new ClassPathResource("queuegate/unavailable-page.html"), messages),
                Duration.ofHours(2));
        QueueEvents heard = new QueueEvents() {
            @Override
            public void decided(String routeId, Decision outcome, Duration took) {
                events.add("decided " + routeId + " " + outcome.value());
            }

            @Override
            public void rejected(String routeId, String code) {
                events.add("rejected " + routeId + " " + code);
            }

            @Override
            public void failOpenPass(String productId, String routeId) {
                events.add("unchecked pass " + productId + " " + routeId);
            }
        };
        filter = new QueueAdmissionFilter(new RouteQueuePolicies(Map.of()), admission.service, admission.sessions,
                heard, responses, new ClientAddresses(new TrustedProxies(List.of())),
                exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-User-Id")), 1 << 20,
                null, false, admission.clock);
    }

    @Test
    void anAdmittedShopperReachesTheShopWithTheirIdentityAndLeavesWithAToken() {
        MockServerWebExchange exchange = request(queued, MockServerHttpRequest.get("/api/products/42"), "alice", null);
        filter.filter(exchange, shop(HttpStatus.OK)).block();

        assertThat(forwarded).containsExactly(exchange);
        assertThat((String) exchange.getAttribute(ForwardedRequestHeaders.IDENTITY)).isEqualTo("alice");
        assertThat(exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(exchange.getResponse().getHeaders().getFirst("Queue-Token")).isNotBlank();
        assertThat(exchange.getResponse().getCookies().getFirst("queue_token")).isNotNull();
        assertThat(events).containsExactly("decided products active");
    }

    @Test
    void aShopperInLineIsAnsweredWithTheirPlaceAndNeverReachesTheShop() {
        filter.filter(request(queued, MockServerHttpRequest.get("/api/products/42"), "alice", null), shop(HttpStatus.OK))
                .block();
        MockServerWebExchange bob = request(queued, MockServerHttpRequest.get("/api/products/42"), "bob", null);
        filter.filter(bob, shop(HttpStatus.OK)).block();

        assertThat(forwarded).hasSize(1);
        assertThat(bob.getResponse().getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
        assertThat(bob.getResponse().getHeaders().getFirst("Queue-Rank")).isEqualTo("1");
        assertThat(bob.getResponse().getHeaders().getFirst("Retry-After")).isNotBlank();
        assertThat(bob.getResponse().getBodyAsString().block()).contains("\"status\":\"WAITING\"").contains("\"rank\":1");
        assertThat(events).containsExactly("decided products active", "decided products waiting");
    }

    @Test
    void aPurchaseTheShopAcceptsEndsTheSessionAndTheNextInLineGoesThrough() {
        String token = tokenOf(filter(MockServerHttpRequest.get("/api/products/42"), "alice", null, HttpStatus.OK));
        filter(MockServerHttpRequest.get("/api/products/42"), "bob", null, HttpStatus.OK);

        filter(MockServerHttpRequest.post("/api/products/42/orders"), "alice", token, HttpStatus.CREATED);

        MockServerWebExchange bob = filter(MockServerHttpRequest.get("/api/products/42"), "bob", null, HttpStatus.OK);
        assertThat(bob.getResponse().getStatusCode()).isEqualTo(HttpStatus.OK);
        MockServerWebExchange again = filter(MockServerHttpRequest.post("/api/products/42/orders"), "alice", token,
                HttpStatus.CREATED);
        assertThat(again.getResponse().getStatusCode()).as("one admission buys once").isEqualTo(HttpStatus.CONFLICT);
        assertThat(again.getResponse().getBodyAsString().block()).contains("\"error\":\"session_ended\"");
        assertThat(events).endsWith("rejected products session_ended", "decided products rejected");
    }

    @Test
    void aPurchaseTheShopRefusesGivesTheClaimBackForAnotherTry() {
        String token = tokenOf(filter(MockServerHttpRequest.get("/api/products/42"), "alice", null, HttpStatus.OK));
        MockServerWebExchange refused = filter(MockServerHttpRequest.post("/api/products/42/orders"), "alice", token,
                HttpStatus.UNPROCESSABLE_ENTITY);
        assertThat(refused.getResponse().getStatusCode()).isEqualTo(HttpStatus.UNPROCESSABLE_ENTITY);
        // Had the claim stayed taken, the retry would be refused 409 completion_in_progress.

        MockServerWebExchange retried = filter(MockServerHttpRequest.post("/api/products/42/orders"), "alice", token,
                HttpStatus.CREATED);
        assertThat(retried.getResponse().getStatusCode()).isEqualTo(HttpStatus.CREATED);
        assertThat(forwarded).hasSize(3);
    }

    @Test
    void aRouteWithoutAQueuePassesStraightThroughWithoutAskingTheStore() {
        MockServerWebExchange exchange = request(open, MockServerHttpRequest.get("/anything"), "alice", null);
        filter.filter(exchange, shop(HttpStatus.OK)).block();
        assertThat(forwarded).containsExactly(exchange);
        assertThat(admission.store.calls()).isZero();
        assertThat(events).isEmpty();
    }

    @Test
    void anInvalidProductIdIsRefusedBeforeTheStoreIsAsked() {
        MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/api/products/x")
                .header("X-User-Id", "alice"));
        exchange.getAttributes().put(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR, queued);
        ServerWebExchangeUtils.putUriTemplateVariables(exchange, Map.of("productId", "../42"));
        filter.filter(exchange, shop(HttpStatus.OK)).block();
        assertThat(exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
        assertThat(exchange.getResponse().getBodyAsString().block()).contains("\"error\":\"invalid_product\"");
        assertThat(forwarded).isEmpty();
        assertThat(admission.store.calls()).isZero();
    }

    @Test
    void whenTheStoreCannotAnswerAClosedRouteAnswers503AndForwardsNothing() {
        admission.store.failing(true);
        MockServerWebExchange exchange = filter(MockServerHttpRequest.get("/api/products/42"), "alice", null, HttpStatus.OK);
        assertThat(exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
        assertThat(forwarded).isEmpty();
        assertThat(events).containsExactly("rejected products queue_unavailable", "decided products unavailable");
    }

    @Test
    void whenTheStoreCannotAnswerAnOpenRouteForwardsUncheckedWithTheProvenIdentity() {
        admission.store.failing(true);
        MockServerWebExchange exchange = request(forgiving, MockServerHttpRequest.get("/api/products/42"), "alice", null);
        filter.filter(exchange, shop(HttpStatus.OK)).block();
        assertThat(forwarded).containsExactly(exchange);
        assertThat((String) exchange.getAttribute(ForwardedRequestHeaders.IDENTITY)).isEqualTo("alice");
        assertThat(events).containsExactly("unchecked pass 42 forgiving", "decided forgiving unchecked");
    }

    @Test
    void anAnonymousCallerIsAskedForProofOfWorkBeforeTheStoreIsAsked() {
        MockServerWebExchange exchange = request(guarded, MockServerHttpRequest.get("/api/products/42"), null, null);
        filter.filter(exchange, shop(HttpStatus.OK)).block();
        assertThat(exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.PRECONDITION_REQUIRED);
        assertThat(exchange.getResponse().getBodyAsString().block()).contains("\"error\":\"challenge_required\"")
                .contains("\"challenge\":{");
        assertThat(forwarded).isEmpty();
        assertThat(admission.store.calls()).isZero();
        assertThat(events).containsExactly("rejected guarded challenge_required", "decided guarded rejected");
    }

    @Test
    void aMisconfiguredRouteIsLoggedAtMostOnceAMinuteOnTheGatewaysClock(CapturedOutput output) {
        for (int i = 0; i < 3; i++) {
            MockServerWebExchange exchange = request(broken, MockServerHttpRequest.get("/api/products/42"), "alice", null);
            filter.filter(exchange, shop(HttpStatus.OK)).block();
            assertThat(exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
        }
        assertThat(logLines(output)).isEqualTo(1);
        admission.clock.advance(Duration.ofSeconds(61));
        filter.filter(request(broken, MockServerHttpRequest.get("/api/products/42"), "alice", null), shop(HttpStatus.OK))
                .block();
        assertThat(logLines(output)).isEqualTo(2);
        assertThat(forwarded).isEmpty();
    }

    private static long logLines(CapturedOutput output) {
        return output.getOut().lines().filter(line -> line.contains("Route 'broken' has an invalid queue block")).count();
    }

    private MockServerWebExchange filter(MockServerHttpRequest.BaseBuilder<?> request, String user, String token,
            HttpStatus shopAnswers) {
        MockServerWebExchange exchange = request(queued, request, user, token);
        filter.filter(exchange, shop(shopAnswers)).block();
        return exchange;
    }

    private static MockServerWebExchange request(Route route, MockServerHttpRequest.BaseBuilder<?> request, String user,
            String token) {
        if (user != null) {
            request.header("X-User-Id", user);
        }
        request.header("Accept", "application/json");
        if (token != null) {
            request.header("Queue-Token", token);
        }
        MockServerWebExchange exchange = MockServerWebExchange.from(request);
        exchange.getAttributes().put(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR, route);
        ServerWebExchangeUtils.putUriTemplateVariables(exchange, Map.of("productId", "42"));
        return exchange;
    }

    /** The shop: answers {@code status} to whatever reaches it. */
    private GatewayFilterChain shop(HttpStatus status) {
        return exchange -> {
            forwarded.add(exchange);
            exchange.getAttributes().put(ServerWebExchangeUtils.CLIENT_RESPONSE_ATTR, "the shop's answer");
            exchange.getResponse().setStatusCode(status);
            return exchange.getResponse().setComplete();
        };
    }

    private static String tokenOf(MockServerWebExchange exchange) {
        return exchange.getResponse().getHeaders().getFirst("Queue-Token");
    }
}
