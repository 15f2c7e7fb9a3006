package io.queuegate.admission;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

import com.github.tomakehurst.wiremock.stubbing.Scenario;
import io.queuegate.support.GatewayFixture;
import io.queuegate.support.GatewayInstance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.client.WebClient;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One admission buys once. The completion of a session ({@code complete-on}) is claimed in Redis
 * before the purchase is forwarded, so concurrent purchases of one session, on any instance, are
 * refused while one is in flight; a purchase the shop refuses gives the claim back, one whose
 * answer never came (the client hung up, the gateway gave up) keeps it.
 */
class PurchaseDoorTest {

    private static final String ORDERS = "/api/products/42/orders";

    /** Longer than the shop's slowest answer in the other tests, shorter than the one it gives up on. */
    private static final int RESPONSE_TIMEOUT_MS = 2_500;

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1",
                    "complete-on", "POST /api/products/{productId}/orders"))
            .with("spring.cloud.gateway.server.webflux.routes[0].metadata.response-timeout", RESPONSE_TIMEOUT_MS)
            .instances(2);

    @Test
    void twentyConcurrentOrdersOnOneAdmittedTokenReachTheShopOnce() {
        // The shop takes its time, so every order arrives while the first is in flight.
        fixture.backend().stubFor(post(urlPathEqualTo(ORDERS)).willReturn(aResponse().withStatus(201)
                .withFixedDelay(1_500).withBody("{\"order\":\"placed\"}")));
        String token = admitted("alice");
        // Someone waits: after the purchase, alice's token is no place anywhere near the front.
        join(fixture.gateway(1), "bob").expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);

        List<Integer> statuses = Flux.range(0, 20)
                .parallel(20).runOn(Schedulers.boundedElastic())
                .map(i -> order(fixture.gateway(i % 2), "alice", token).expectBody().returnResult().getStatus().value())
                .sequential().collectList().block(Duration.ofSeconds(60));

        assertThat(statuses).filteredOn(status -> status == 201).hasSize(1);
        assertThat(statuses).filteredOn(status -> status != 201).allMatch(status -> status == 409 || status == 429);
        fixture.backend().verify(1, postRequestedFor(urlPathEqualTo(ORDERS)));
        assertThat(fixture.redis().commands().zrange("qg:{42}:active", 0, -1)).containsExactly("bob");
    }

    @Test
    void aConcurrentOrderIsToldACompletionIsInProgress() {
        fixture.backend().stubFor(post(urlPathEqualTo(ORDERS)).willReturn(aResponse().withStatus(201)
                .withFixedDelay(1_500)));
        String token = admitted("alice");
        Mono<?> first = Mono.fromCallable(() -> order(fixture.gateway(0), "alice", token).expectBody().returnResult())
                .subscribeOn(Schedulers.boundedElastic()).cache();
        first.subscribe();
        assertThat(fixture.redis().commands()).satisfies(redis -> org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(5)).until(() -> redis.exists("qg:{42}:completing:alice") == 1));

        order(fixture.gateway(1), "alice", token).expectStatus().isEqualTo(HttpStatus.CONFLICT)
                .expectBody().jsonPath("$.error").isEqualTo("completion_in_progress");
        // Done before the next test, whose alice it would otherwise complete.
        first.block(Duration.ofSeconds(10));
    }

    @Test
    void anOrderTheShopRefusesGivesTheClaimBackSoTheShopperCanTryAgain() {
        fixture.backend().stubFor(post(urlPathEqualTo(ORDERS)).inScenario("payment").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withStatus(502)).willSetStateTo("recovered"));
        fixture.backend().stubFor(post(urlPathEqualTo(ORDERS)).inScenario("payment").whenScenarioStateIs("recovered")
                .willReturn(aResponse().withStatus(201)));
        String token = admitted("alice");

        order(fixture.gateway(0), "alice", token).expectStatus().isEqualTo(HttpStatus.BAD_GATEWAY);
        assertThat(fixture.redis().commands().exists("qg:{42}:completing:alice")).isZero();
        assertThat(fixture.redis().commands().zrange("qg:{42}:active", 0, -1)).containsExactly("alice");

        order(fixture.gateway(1), "alice", token).expectStatus().isCreated();
        assertThat(fixture.redis().commands().zrange("qg:{42}:active", 0, -1)).isEmpty();
        assertThat(fixture.redis().commands().exists("qg:{42}:completing:alice")).isZero();
    }

    @Test
    void anOrderWhoseClientWentAwayCannotBePlacedAgain() throws Exception {
        // The scalper's move: send the order, hang up once the shop has it, send it again.
        fixture.backend().stubFor(post(urlPathEqualTo(ORDERS)).willReturn(aResponse().withStatus(201)
                .withFixedDelay(1_500)));
        String token = admitted("alice");
        assertThat(WebClient.create(fixture.gateway(0).baseUrl()).post().uri(ORDERS).header("X-User-Id", "alice")
                .header("Queue-Token", token).bodyValue("{\"quantity\":1}").retrieve().toBodilessEntity()
                .timeout(Duration.ofMillis(500)).onErrorResume(TimeoutException.class, gone -> Mono.empty())
                .block(Duration.ofSeconds(5))).as("hung up before the answer").isNull();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> fixture.backend().verify(1, postRequestedFor(urlPathEqualTo(ORDERS))));
        // The shop answers 1.5 s after it got the order, to nobody: the claim stands throughout.
        org.awaitility.Awaitility.await().during(Duration.ofMillis(1_500)).atMost(Duration.ofSeconds(3))
                .until(() -> fixture.redis().commands().exists("qg:{42}:completing:alice") == 1);

        order(fixture.gateway(1), "alice", token).expectStatus().isEqualTo(HttpStatus.CONFLICT)
                .expectBody().jsonPath("$.error").isEqualTo("completion_in_progress");
        fixture.backend().verify(1, postRequestedFor(urlPathEqualTo(ORDERS)));
    }

    @Test
    void anOrderTheGatewayGaveUpWaitingForCannotBePlacedAgain() {
        fixture.backend().stubFor(post(urlPathEqualTo(ORDERS)).willReturn(aResponse().withStatus(201)
                .withFixedDelay(RESPONSE_TIMEOUT_MS + 1_500)));
        String token = admitted("alice");

        order(fixture.gateway(0), "alice", token).expectStatus().isEqualTo(HttpStatus.GATEWAY_TIMEOUT);
        assertThat(fixture.redis().commands().exists("qg:{42}:completing:alice"))
                .as("the shop may have placed it: the claim stays").isEqualTo(1);
        order(fixture.gateway(1), "alice", token).expectStatus().isEqualTo(HttpStatus.CONFLICT);
        fixture.backend().verify(1, postRequestedFor(urlPathEqualTo(ORDERS)));
    }

    @Test
    void aRedirectAfterTheOrderCompletesTheSession() {
        fixture.backend().stubFor(post(urlPathEqualTo(ORDERS)).willReturn(aResponse().withStatus(303)
                .withHeader("Location", "/orders/17")));
        String token = admitted("alice");

        order(fixture.gateway(0), "alice", token).expectStatus().isEqualTo(HttpStatus.SEE_OTHER);
        assertThat(fixture.redis().commands().zrange("qg:{42}:active", 0, -1)).isEmpty();
    }

    @Test
    void theClaimExpiresWithTheSession() {
        fixture.backend().stubFor(post(urlPathEqualTo(ORDERS)).willReturn(aResponse().withStatus(201)
                .withFixedDelay(1_000)));
        String token = admitted("alice");
        Mono<?> first = Mono.fromCallable(() -> order(fixture.gateway(0), "alice", token).expectBody().returnResult())
                .subscribeOn(Schedulers.boundedElastic()).cache();
        first.subscribe();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                .until(() -> fixture.redis().commands().exists("qg:{42}:completing:alice") == 1);
        double sessionEnd = fixture.redis().commands().zscore("qg:{42}:active", "alice");
        long claimTtl = fixture.redis().commands().pttl("qg:{42}:completing:alice");
        assertThat(System.currentTimeMillis() + claimTtl).isCloseTo((long) sessionEnd, org.assertj.core.data.Offset.offset(2_000L));
        first.block(Duration.ofSeconds(10));
    }

    @Test
    void completeOnReadsTheOrderInAnyLetterCaseAsTheShopDoes() {
        // A shop that reads paths case-insensitively sells at /ORDERS: it is the order, and ends the session.
        fixture.backend().stubFor(post(urlPathMatching("(?i)/api/products/42/orders")).willReturn(aResponse()
                .withStatus(201)));
        String token = admitted("alice");
        order(fixture.gateway(0), "/api/products/42/ORDERS", "alice", token).expectStatus().isCreated();
        assertThat(fixture.redis().commands().zrange("qg:{42}:active", 0, -1)).isEmpty();
        order(fixture.gateway(0), "alice", token).expectStatus().isEqualTo(HttpStatus.CONFLICT);
    }

    private static String admitted(String user) {
        return join(fixture.gateway(0), user).expectStatus().isOk().expectBody().returnResult().getResponseHeaders()
                .getFirst("Queue-Token");
    }

    private static WebTestClient.ResponseSpec join(GatewayInstance gateway, String user) {
        return gateway.client().get().uri("/api/products/42").header("X-User-Id", user).exchange();
    }

    private static WebTestClient.ResponseSpec order(GatewayInstance gateway, String user, String token) {
        return order(gateway, ORDERS, user, token);
    }

    private static WebTestClient.ResponseSpec order(GatewayInstance gateway, String path, String user, String token) {
        return gateway.client().post().uri(path).header("X-User-Id", user).header("Queue-Token", token)
                .bodyValue("{\"quantity\":1}").exchange();
    }
}
