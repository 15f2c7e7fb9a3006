package io.queuegate.admission;

import java.time.Duration;
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
import org.springframework.test.web.reactive.server.WebTestClient;

import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;

/**
 * The route's {@code on-redis-failure} decides, with the Redis server really gone: closed
 * answers 503 within the Redis timeout, open forwards.
 */
class RedisFailureTest {

    private static RedisProcess redis;
    private static WireMockServer backend;
    private static GatewayInstance gateway;
    private static WebTestClient client;

    @BeforeAll
    static void startThenLoseRedis() {
        redis = RedisProcess.start();
        backend = Backend.start();
        Map<String, Object> properties = GatewayInstance.defaults(redis, backend.baseUrl(),
                Map.of("max-active", "1", "on-redis-failure", "closed"));
        properties.put("queuegate.products.open-1.on-redis-failure", "open");
        properties.put("queuegate.redis.timeout", "500ms");
        gateway = GatewayInstance.start(properties);
        client = gateway.client().mutate().responseTimeout(Duration.ofSeconds(5)).build();
        redis.close();
    }

    @AfterAll
    static void stop() {
        gateway.close();
        backend.stop();
    }

    @BeforeEach
    void resetBackend() {
        backend.resetRequests();
    }

    @Test
    void aClosedRouteAnswers503AndForwardsNothing() {
        client.get().uri("/api/products/42").header("X-User-Id", "alice").exchange()
                .expectStatus().isEqualTo(HttpStatus.SERVICE_UNAVAILABLE)
                .expectHeader().exists("Retry-After")
                .expectBody().jsonPath("$.error").isEqualTo("queue_unavailable");
        backend.verify(0, anyRequestedFor(anyUrl()));
    }

    @Test
    void anOpenProductForwardsUnchecked() {
        client.get().uri("/api/products/open-1").header("X-User-Id", "alice").exchange()
                .expectStatus().isOk();
        backend.verify(1, getRequestedFor(urlPathEqualTo("/api/products/open-1")));
    }

    @Test
    void theStatusEndpointSaysUnavailableRatherThan500() {
        String token = gateway.bean(io.queuegate.token.WaitTokenCodec.class).issue("42", "alice", false);
        client.get().uri("/queue/42/status").header("X-User-Id", "alice").header("Queue-Token", token).exchange()
                .expectStatus().isEqualTo(HttpStatus.SERVICE_UNAVAILABLE)
                .expectBody().jsonPath("$.error").isEqualTo("queue_unavailable");
    }
}
