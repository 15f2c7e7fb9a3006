package io.queuegate.admission;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.support.GatewayFixture;
import io.queuegate.support.GatewayInstance;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.web.reactive.server.WebTestClient;

import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Product ids an attacker invents, as many as the route's pattern allows: one the shop does not
 * sell (it answers 404) leaves nothing in Redis; one the shop answers for lives only as long as
 * its session while nobody waits in it; and under a full Redis (maxmemory, noeviction) a flood of
 * them leaves the shoppers of a real product served. A gateway told that the configured products
 * are all there are refuses the others before any Redis work.
 */
class InventedProductsTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "2", "session-ttl", "10m"))
            .with("queuegate.products.42.display-name", "Limited sneakers")
            .with("queuegate.joins.max-per-address", "1000000")
            .with("queuegate.joins.max-per-caller", "1000000");

    @BeforeAll
    static void theShopSellsNoSuchProducts() {
        fixture.backend().stubFor(get(urlPathMatching("/api/products/nope-[^/]+")).atPriority(1)
                .willReturn(aResponse().withStatus(404).withBody("{\"error\":\"no such product\"}")));
    }

    /** A second gateway, kept until the class is done: closing it would take the shared server loops with it. */
    private static GatewayInstance knowsItsProducts;

    @AfterEach
    void noMemoryLimit() {
        fixture.redis().commands().configSet("maxmemory", "0");
    }

    @AfterAll
    static void stopTheSecondGateway() {
        if (knowsItsProducts != null) {
            knowsItsProducts.close();
        }
    }

    @Test
    void anIdTheShopDoesNotSellLeavesNothingInRedis() {
        WebTestClient.ResponseSpec answer = fixture.client().get().uri("/api/products/nope-1").header("X-User-Id", "mallory")
                .exchange();
        answer.expectStatus().isNotFound();
        assertThat(fixture.redis().commands().keys("qg:{nope-1}:*")).as("keys of the invented product").isEmpty();
    }

    @Test
    void aProductNobodyWaitsInKeepsItsStateOnlyAsLongAsItsSessions() {
        RedisCommands<String, String> redis = fixture.redis().commands();
        fixture.client().get().uri("/api/products/p7").header("X-User-Id", "alice").exchange().expectStatus().isOk();
        assertThat(redis.pttl("qg:{p7}:settings")).as("ms the invented product's state lives")
                .isBetween(Duration.ofMinutes(10).toMillis(), Duration.ofMinutes(13).toMillis());
        assertThat(redis.memoryUsage("qg:{p7}:settings") + redis.memoryUsage("qg:{p7}:active")
                + redis.memoryUsage("qg:{p7}:seq")).as("bytes it costs").isLessThan(700);

        fixture.client().get().uri("/api/products/42").header("X-User-Id", "bob").exchange().expectStatus().isOk();
        assertThat(redis.pttl("qg:{42}:settings")).as("a configured product's state: a token's life and a session")
                .isGreaterThan(Duration.ofHours(2).toMillis());

        fixture.client().get().uri("/api/products/p7").header("X-User-Id", "carol").exchange().expectStatus().isOk();
        fixture.client().get().uri("/api/products/p7").header("X-User-Id", "dave").exchange().expectStatus()
                .isEqualTo(429);
        assertThat(redis.pttl("qg:{p7}:settings")).as("once someone waits: as long as a waiting token lives")
                .isGreaterThan(Duration.ofHours(2).toMillis());
    }

    @Test
    void aFloodOfInventedIdsOnAFullRedisLeavesTheRealProductServed() {
        RedisCommands<String, String> redis = fixture.redis().commands();
        fixture.client().get().uri("/api/products/42").header("X-User-Id", "warm").exchange().expectStatus().isOk();
        long used = Long.parseLong(redis.info("memory").replaceAll("(?s).*used_memory:(\\d+).*", "$1"));
        redis.configSet("maxmemory-policy", "noeviction");
        redis.configSet("maxmemory", Long.toString(used + 512 * 1024));

        List<Integer> flood = Flux.range(0, 1_500).parallel(8).runOn(Schedulers.boundedElastic())
                .map(i -> fixture.client().get().uri("/api/products/nope-" + i).header("X-User-Id", "bot-" + i)
                        .header("X-Forwarded-For", "198.51.100." + (i % 250)).exchange().returnResult(String.class)
                        .getStatus().value())
                .sequential().collectList().block(Duration.ofMinutes(2));
        assertThat(flood).as("the shop's own answer to each invented id").allMatch(status -> status == 404);
        assertThat(redis.keys("qg:{nope-*")).as("keys left by the flood").isEmpty();

        for (int i = 0; i < 10; i++) {
            int status = fixture.client().get().uri("/api/products/42").header("X-User-Id", "shopper-" + i).exchange()
                    .returnResult(String.class).getStatus().value();
            assertThat(status).as("a real product's shopper " + i).isIn(200, 429);
        }
    }

    @Test
    void aGatewayThatKnowsItsProductsRefusesOthersWithoutTouchingRedis() {
        Map<String, Object> properties = GatewayInstance.defaults(fixture.redis(), fixture.backend().baseUrl(),
                Map.of("max-active", "2"));
        properties.put("queuegate.products.42.display-name", "Limited sneakers");
        properties.put("queuegate.unknown-products", "refuse");
        knowsItsProducts = GatewayInstance.start(properties);
        knowsItsProducts.client().get().uri("/api/products/nope-9").header("X-User-Id", "mallory").exchange()
                .expectStatus().isNotFound()
                .expectBody().jsonPath("$.error").isEqualTo("unknown_product");
        assertThat(fixture.redis().commands().keys("qg:{nope-9}:*")).isEmpty();
        fixture.backend().verify(0, com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor(
                urlPathMatching("/api/products/nope-9")));
        knowsItsProducts.client().get().uri("/api/products/42").header("X-User-Id", "alice").exchange()
                .expectStatus().isOk();
    }
}
