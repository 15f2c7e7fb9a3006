package io.queuegate.admission;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.queuegate.support.GatewayFixture;
import io.queuegate.support.PowSolver;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an attacker tries with what the waiting room hands out for free, on two instances: buying
 * again with one admission while places are free, sequentially and all at once, and taking place
 * after place with one token and one proof of work (leave, join again). One admission buys once;
 * every new place pays the product's proof of work and counts against the join limits, with or
 * without an old token.
 */
class NothingForFreeTest {

    private static final int DIFFICULTY = 2_000;

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of(
                    "max-active", "5",
                    "session-ttl", "10m",
                    "complete-on", "POST /api/products/{productId}/orders"))
            .withRoute("paid", Map.of(
                    "predicates[0]", "Path=/paid/{productId}/**,/paid/{productId}",
                    "metadata.queue.max-active", "5",
                    "metadata.queue.complete-on", "POST /paid/{productId}/orders",
                    "metadata.queue.join-challenge", "pow",
                    "metadata.queue.pow-difficulty", Integer.toString(DIFFICULTY)))
            .with("queuegate.joins.max-per-address", "8")
            .instances(2);

    @BeforeAll
    static void stubThePaidRoute() {
        fixture.backend().stubFor(get(urlPathMatching("/paid/[^/]+")).willReturn(aResponse().withStatus(200)));
    }

    @Test
    void oneAnonymousAdmissionBuysOnceWhilePlacesAreFree() {
        String token = header(request(0, "/api/products/42", null, null, "203.0.113.1"), "Queue-Token");
        assertThat(order(0, "/api/products/42/orders", token, "203.0.113.1").getStatus().value()).isEqualTo(201);
        for (int i = 0; i < 10; i++) {
            EntityExchangeResult<String> again = order(i % 2, "/api/products/42/orders", token, "203.0.113.1");
            assertThat(again.getStatus().value()).as("order " + (i + 2) + " with the same token").isEqualTo(409);
            assertThat(again.getResponseBody()).contains("\"error\":\"session_ended\"");
        }
        fixture.backend().verify(1, postRequestedFor(urlPathEqualTo("/api/products/42/orders")));
    }

    @Test
    void fiftyOrdersAtOnceOnOneAdmissionReachTheShopOnceRoundAfterRound() {
        for (int round = 0; round < 2; round++) {
            String product = "/api/products/c" + round;
            String token = header(request(0, product, null, null, "203.0.113.2"), "Queue-Token");
            List<Integer> statuses = Flux.range(0, 50).parallel(16).runOn(Schedulers.boundedElastic())
                    .map(i -> order(i % 2, product + "/orders", token, "203.0.113.2").getStatus().value())
                    .sequential().collectList().block(Duration.ofSeconds(60));
            assertThat(statuses).filteredOn(status -> status == 201).as("round " + round).hasSize(1);
            assertThat(statuses).filteredOn(status -> status != 201).allMatch(status -> status == 409);
            fixture.backend().verify(1, postRequestedFor(urlPathEqualTo(product + "/orders")));
        }
    }

    @Test
    void aFirstRequestThatCompletesIsANewShopperAndJoins() {
        assertThat(order(0, "/api/products/fresh/orders", null, "203.0.113.3").getStatus().value()).isEqualTo(201);
    }

    @Test
    void aNewPlaceAfterALeavePaysAgainEvenWithTheOldTokenAndTheOldSolution() {
        String address = "203.0.113.4";
        String solution = PowSolver.solveBody(request(0, "/paid/7", null, null, address).getResponseBody());
        EntityExchangeResult<String> first = request(0, "/paid/7", null, solution, address);
        assertThat(first.getStatus().value()).isEqualTo(200);
        String token = header(first, "Queue-Token");
        for (int cycle = 0; cycle < 3; cycle++) {
            assertThat(leave(cycle % 2, "/queue/7", token, address)).isEqualTo(200);
            EntityExchangeResult<String> again = request(cycle % 2, "/paid/7", token, null, address);
            assertThat(again.getStatus().value()).as("a new place, cycle " + cycle).isEqualTo(428);
            assertThat(again.getResponseBody()).contains("\"error\":\"challenge_required\"");
            assertThat(request(cycle % 2, "/paid/7", token, solution, address).getStatus().value())
                    .as("the old solution, again").isEqualTo(409);
            String fresh = PowSolver.solveBody(again.getResponseBody());
            EntityExchangeResult<String> paid = request(cycle % 2, "/paid/7", token, fresh, address);
            assertThat(paid.getStatus().value()).isEqualTo(200);
            token = header(paid, "Queue-Token") != null ? header(paid, "Queue-Token") : token;
        }
        // A shopper who holds the place pays nothing for asking again.
        assertThat(request(0, "/paid/7", token, null, address).getStatus().value()).isEqualTo(200);
    }

    @Test
    void everyNewPlaceCountsAgainstTheJoinLimitWithOrWithoutAToken() {
        String address = "203.0.113.5";
        String token = header(request(0, "/api/products/77", null, null, address), "Queue-Token");
        int made = 1;
        int refused = 0;
        for (int i = 0; i < 12; i++) {
            leave(0, "/queue/77", token, address);
            EntityExchangeResult<String> again = request(0, "/api/products/77", token, null, address);
            if (again.getStatus().value() == 200) {
                made++;
                token = header(again, "Queue-Token") != null ? header(again, "Queue-Token") : token;
            }
            else {
                assertThat(again.getResponseBody()).contains("\"error\":\"too_many_joins\"");
                refused++;
            }
        }
        // One instance counts every place made from the address: the limit of 8 holds.
        assertThat(made).as("places made in a minute from one address").isEqualTo(8);
        assertThat(refused).isEqualTo(5);
    }

    private static EntityExchangeResult<String> request(int instance, String path, String token, String solution,
            String address) {
        WebTestClient.RequestHeadersSpec<?> request = fixture.gateway(instance).client().get().uri(path)
                .header("X-Forwarded-For", address);
        if (token != null) {
            request = request.header("Queue-Token", token);
        }
        if (solution != null) {
            request = request.header("Queue-Challenge", solution);
        }
        return request.exchange().expectBody(String.class).returnResult();
    }

    private static EntityExchangeResult<String> order(int instance, String path, String token, String address) {
        WebTestClient.RequestHeadersSpec<?> request = fixture.gateway(instance).client().post().uri(path)
                .header("X-Forwarded-For", address);
        if (token != null) {
            request = request.header("Queue-Token", token);
        }
        return request.exchange().expectBody(String.class).returnResult();
    }

    private static int leave(int instance, String path, String token, String address) {
        return fixture.gateway(instance).client().delete().uri(path).header("Queue-Token", token)
                .header("X-Forwarded-For", address).exchange().returnResult(String.class).getStatus().value();
    }

    private static String header(EntityExchangeResult<String> result, String name) {
        return result.getResponseHeaders().getFirst(name);
    }
}
