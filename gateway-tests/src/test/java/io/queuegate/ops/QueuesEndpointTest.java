package io.queuegate.ops;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /actuator/queues} with two gateways on one Redis: what one instance's operator does,
 * the other instance's shoppers feel at once, because the change lives in Redis.
 */
class QueuesEndpointTest {

    private static RedisProcess redis;
    private static WireMockServer backend;
    private static final List<GatewayInstance> gateways = new ArrayList<>();
    private static ShopClient a;
    private static ShopClient b;

    /** What the gateways logged while they started. */
    private static String startupLog;

    @BeforeAll
    static void start() {
        java.io.PrintStream original = System.out;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setOut(new java.io.PrintStream(new java.io.OutputStream() {
            @Override
            public void write(int b) {
                original.write(b);
                captured.write(b);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                original.write(bytes, offset, length);
                captured.write(bytes, offset, length);
            }
        }, true));
        try {
            startGateways();
        }
        finally {
            System.setOut(original);
            startupLog = captured.toString();
        }
    }

    private static void startGateways() {
        redis = RedisProcess.start();
        backend = Backend.start();
        for (int i = 0; i < 2; i++) {
            Map<String, Object> properties = GatewayInstance.defaults(redis, backend.baseUrl(), Map.of(
                    "max-active", "1",
                    "session-ttl", "1m",
                    "promotion", "pubsub",
                    "complete-on", "POST /api/products/{productId}/orders"));
            properties.put("management.endpoints.web.exposure.include", "health,queues");
            gateways.add(GatewayInstance.start(properties));
        }
        a = new ShopClient(gateways.get(0));
        b = new ShopClient(gateways.get(1));
    }

    @AfterAll
    static void stop() {
        GatewayInstance.closeAll(gateways);
        backend.stop();
        redis.close();
    }

    @BeforeEach
    void emptyQueues() {
        redis.flushAll();
    }

    @Test
    void aShopsOwnGatewayIsWarnedNotStoppedWhenTheQueuesEndpointIsOnItsMainPort() {
        // The library cannot know whether Spring Security guards the port; the runnable gateway refuses.
        assertThat(startupLog).contains("The shopper port (server.port) serves the queues endpoint")
                .contains("Ignore this if Spring Security guards these endpoints");
        gateways.get(0).client().get().uri("/actuator/queues").exchange().expectStatus().isOk();
    }

    @Test
    void listsEveryProductWithPeopleInLineOrAdmittedMostWaitingFirst() {
        b.get("42", "alice", null).expectStatus().isOk();
        b.get("42", "bob", null);
        b.get("42", "carol", null);
        b.get("7", "dave", null).expectStatus().isOk();
        // A pace measured for ten minutes, about one admission every two seconds.
        long now = System.currentTimeMillis();
        redis.commands().hset("qg:{42}:settings", Map.of("rate", "0.5", "rate_at", Long.toString(now),
                "rate_since", Long.toString(now - 600_000)));
        // New waiters' products reach the registry in batches (QueueStore.REGISTRATION_PERIOD).
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(2))
                .until(() -> redis.commands().sismember("qg:products", "42")
                        && redis.commands().zscore("qg:activity", "7") != null);

        a.raw().get().uri("/actuator/queues").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.truncated").isEqualTo(false)
                .jsonPath("$.products.length()").isEqualTo(2)
                .jsonPath("$.products[1].productId").isEqualTo("7")
                .jsonPath("$.products[1].waiting").isEqualTo(0)
                .jsonPath("$.products[1].active").isEqualTo(1)
                .jsonPath("$.products[0].productId").isEqualTo("42")
                .jsonPath("$.products[0].waiting").isEqualTo(2)
                .jsonPath("$.products[0].active").isEqualTo(1)
                .jsonPath("$.products[0].capacity").isEqualTo(1)
                .jsonPath("$.products[0].paused").isEqualTo(false)
                .jsonPath("$.products[0].draining").isEqualTo(false)
                .jsonPath("$.products[0].admissionRate").value(rate ->
                        assertThat(((Number) rate).doubleValue()).isCloseTo(0.5, org.assertj.core.data.Offset.offset(0.01)))
                .jsonPath("$.products[0].lastInLineEtaSeconds").value(eta ->
                        assertThat(((Number) eta).longValue()).isBetween(4L, 5L));
    }

    @Test
    void showsOneProductAndRefusesUnknownAndInvalidIds() {
        b.get("42", "alice", null).expectStatus().isOk();

        a.raw().get().uri("/actuator/queues/42").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.productId").isEqualTo("42")
                .jsonPath("$.active").isEqualTo(1)
                .jsonPath("$.waiting").isEqualTo(0)
                .jsonPath("$.lastInLineEtaSeconds").isEmpty();
        a.raw().get().uri("/actuator/queues/nobody-here").exchange()
                .expectStatus().isNotFound()
                .expectBody().jsonPath("$.error").isEqualTo("unknown_product");
        a.raw().get().uri("/actuator/queues/" + "x".repeat(65)).exchange()
                .expectStatus().isBadRequest()
                .expectBody().jsonPath("$.error").isEqualTo("invalid_product");
    }

    @Test
    void aPauseThroughOneInstanceStopsPromotionThroughTheOther() {
        String alice = ShopClient.tokenOf(b.get("42", "alice", null).expectStatus().isOk());
        String bob = ShopClient.tokenOf(b.get("42", "bob", null));

        a.operate("42", "{\"action\":\"pause\"}").expectStatus().isOk()
                .expectBody().jsonPath("$.queue.paused").isEqualTo(true);
        b.order("42", "alice", alice).expectStatus().isCreated();
        b.status("42", "bob", bob).expectBody().jsonPath("$.status").isEqualTo("WAITING");
        b.get("42", "bob", bob).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);

        a.operate("42", "{\"action\":\"resume\"}").expectStatus().isOk()
                .expectBody().jsonPath("$.promoted").isEqualTo(1).jsonPath("$.queue.paused").isEqualTo(false);
        b.get("42", "bob", bob).expectStatus().isOk();
    }

    @Test
    void aLargerMaxThroughOneInstanceAdmitsMoreThroughTheOther() {
        b.get("42", "alice", null).expectStatus().isOk();
        String bob = ShopClient.tokenOf(b.get("42", "bob", null));
        String carol = ShopClient.tokenOf(b.get("42", "carol", null));

        a.operate("42", "{\"action\":\"max\",\"value\":\"3\"}").expectStatus().isOk()
                .expectBody()
                .jsonPath("$.promoted").isEqualTo(2)
                .jsonPath("$.queue.capacity").isEqualTo(3)
                .jsonPath("$.queue.maxOverride").isEqualTo(3)
                .jsonPath("$.queue.active").isEqualTo(3);
        b.get("42", "bob", bob).expectStatus().isOk();
        b.get("42", "carol", carol).expectStatus().isOk();
        b.get("42", "dave", null).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);

        a.operate("42", "{\"action\":\"max\",\"value\":\"\"}").expectStatus().isOk()
                .expectBody().jsonPath("$.queue.capacity").isEqualTo(1).jsonPath("$.queue.maxOverride").isEmpty();
    }

    @Test
    void aDrainThroughOneInstanceTurnsNewShoppersAwayAtTheOther() {
        b.get("42", "alice", null).expectStatus().isOk();

        a.operate("42", "{\"action\":\"drain\"}").expectStatus().isOk()
                .expectBody().jsonPath("$.queue.draining").isEqualTo(true);
        b.get("42", "bob", null).expectStatus().isEqualTo(HttpStatus.SERVICE_UNAVAILABLE)
                .expectBody().jsonPath("$.error").isEqualTo("queue_closed");

        a.operate("42", "{\"action\":\"undrain\"}").expectStatus().isOk()
                .expectBody().jsonPath("$.queue.draining").isEqualTo(false).jsonPath("$.queue.paused").isEqualTo(true);
    }

    @Test
    void whereTheActuatorSharesTheShopperPortItsChangesAreGuardedThere() {
        b.get("42", "alice", null).expectStatus().isOk();

        a.raw().post().uri("/actuator/queues/42").header("Content-Type", "application/json")
                .header("Sec-Fetch-Site", "cross-site").bodyValue("{\"action\":\"pause\"}").exchange()
                .expectStatus().isForbidden().expectBody().jsonPath("$.error").isEqualTo("cross_site_request");
        a.raw().post().uri("/actuator/queues/42").header("Content-Type", "application/json")
                .header("Host", "rebound.example").bodyValue("{\"action\":\"pause\"}").exchange()
                .expectStatus().isEqualTo(HttpStatus.MISDIRECTED_REQUEST);
        a.raw().get().uri("/actuator/queues/42").exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.paused").isEqualTo(false);
    }

    @Test
    void refusesUnknownActionsAndBadValuesWithClearErrors() {
        a.operate("42", "{\"action\":\"explode\"}").expectStatus().isBadRequest()
                .expectBody().jsonPath("$.error").isEqualTo("invalid_action")
                .jsonPath("$.message").value(message -> assertThat((String) message)
                        .contains("max, mode, pause, resume, drain, undrain"));
        a.operate("42", "{\"action\":\"max\",\"value\":\"0\"}").expectStatus().isBadRequest()
                .expectBody().jsonPath("$.error").isEqualTo("invalid_value");
        a.operate("42", "{\"action\":\"max\",\"value\":\"ten\"}").expectStatus().isBadRequest()
                .expectBody().jsonPath("$.error").isEqualTo("invalid_value");
        a.operate("42", "{}").expectStatus().isBadRequest();
        a.operate("bad$id", "{\"action\":\"pause\"}").expectStatus().isBadRequest();
    }

    @Test
    void isNotExposedUnlessAskedFor() {
        Map<String, Object> properties = GatewayInstance.defaults(redis, backend.baseUrl(), Map.of("max-active", "1"));
        // Closed with the others after all tests: closing a gateway mid-class would take the
        // shared Netty resources of the other gateways in this JVM with it.
        GatewayInstance plain = GatewayInstance.start(properties);
        gateways.add(plain);
        plain.client().get().uri("/actuator/queues").exchange().expectStatus().isNotFound()
                .expectBody().returnResult();
        plain.client().get().uri("/actuator/prometheus").exchange().expectStatus().isOk()
                .expectBody().returnResult();
    }
}
