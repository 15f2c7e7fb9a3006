package io.queuegate.promotion;

import java.time.Duration;
import java.util.Map;

import io.queuegate.support.Lines;
import io.queuegate.support.GatewayFixture;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Promotion without a request: the scheduler refills places whose sessions expired, the
 * pub/sub listener promotes on a slot-available message, and the safety net forgets idle
 * products.
 */
class PromotionStrategiesTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture
            .withQueue(Map.of("max-active", "1", "session-ttl", "1s", "promotion", "scheduler"))
            .with("queuegate.products.pubsub-1.promotion", "pubsub")
            .with("queuegate.products.pubsub-1.session-ttl", "10m")
            .with("queuegate.scheduler.interval", "200ms")
            // Long enough that only the pub/sub listener can explain a promotion in its test.
            .with("queuegate.safety-net.interval", "1h");

    @Test
    void theSchedulerPromotesWhenASessionExpires() {
        join("42", "alice");
        // bob waits (429) when he joins; no request follows that could promote him
        String bob = fixture.client().get().uri("/api/products/42").header("X-User-Id", "bob").exchange()
                .expectStatus().isEqualTo(429)
                .expectBody().returnResult().getResponseHeaders().getFirst("Queue-Token");
        // alice's 1 s session ends with no request at all; the scheduler gives bob her place.
        Awaitility.await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(status("42", "bob", bob)).isEqualTo("ACTIVE"));
    }

    @Test
    void theListenerPromotesOnASlotAvailableMessage() {
        join("pubsub-1", "alice");
        String bob = join("pubsub-1", "bob");
        // A place frees outside the gateway (as if an operator removed alice) and is announced.
        fixture.redis().commands().zrem("qg:{pubsub-1}:active", "alice");
        assertThat(status("pubsub-1", "bob", bob)).isEqualTo("WAITING");
        fixture.redis().commands().publish("qg:slot-available:pubsub-1", "alice");
        Awaitility.await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(status("pubsub-1", "bob", bob)).isEqualTo("ACTIVE"));
    }

    @Test
    void theSchedulerLeavesPubSubProductsToTheirEvents() {
        join("pubsub-1", "alice");
        String bob = join("pubsub-1", "bob");
        fixture.redis().commands().zrem("qg:{pubsub-1}:active", "alice");
        // bob's product reaches the registry with the next batch, as the scheduler would find it
        fixture.gateway().bean(io.queuegate.store.ProductRegistry.class).flush().block();
        PromotionScheduler scheduler = fixture.gateway().bean(PromotionScheduler.class);
        assertThat(scheduler.promoteAll("scheduler").block()).isZero();
        assertThat(status("pubsub-1", "bob", bob)).isEqualTo("WAITING");
        // The safety net takes every strategy.
        assertThat(scheduler.promoteAll("").block()).isEqualTo(1);
        assertThat(status("pubsub-1", "bob", bob)).isEqualTo("ACTIVE");
    }

    @Test
    void aProductWithNobodyWaitingIsForgotten() {
        join("7", "alice");
        join("7", "bob");
        Awaitility.await().atMost(Duration.ofSeconds(2))
                .untilAsserted(() -> assertThat(fixture.redis().commands().smembers("qg:products")).contains("7"));
        Awaitility.await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(fixture.redis().commands().smembers("qg:products")).doesNotContain("7"));
        assertThat(Lines.of(fixture.redis().commands(), "7")).isEmpty();
    }

    private String join(String productId, String user) {
        return fixture.client().get().uri("/api/products/" + productId).header("X-User-Id", user).exchange()
                .expectBody().returnResult().getResponseHeaders().getFirst("Queue-Token");
    }

    private String status(String productId, String user, String token) {
        byte[] body = fixture.client().get().uri("/queue/" + productId + "/status").header("X-User-Id", user)
                .header("Queue-Token", token).exchange().expectStatus().isOk()
                .expectBody().returnResult().getResponseBody();
        String json = new String(body);
        return json.replaceAll(".*\"status\":\"([A-Z_]+)\".*", "$1");
    }
}
