package io.queuegate.admission;

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
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One client cannot mint unbounded places or queues: joins without a token are counted per
 * caller (user id, else client address behind trusted proxies), and queues nobody visits expire.
 */
class AbuseLimitsTest {

    private static RedisProcess redis;
    private static WireMockServer backend;
    private static GatewayInstance gateway;
    private static WebTestClient client;

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        backend = Backend.start();
        Map<String, Object> properties = GatewayInstance.defaults(redis, backend.baseUrl(),
                Map.of("max-active", "1", "session-ttl", "10m"));
        properties.put("queuegate.joins.max-per-caller", "3");
        properties.put("queuegate.joins.window", "1m");
        properties.put("queuegate.joins.trusted-proxies[0]", "127.0.0.1");
        properties.put("queuegate.token.ttl", "2h");
        properties.put("queuegate.max-body-size", "1KB");
        gateway = GatewayInstance.start(properties);
        client = gateway.client();
    }

    @AfterAll
    static void stop() {
        gateway.close();
        backend.stop();
        redis.close();
    }

    @BeforeEach
    void emptyQueues() {
        redis.flushAll();
        backend.resetRequests();
    }

    @Test
    void anAnonymousClientAboveTheLimitGetsTooManyJoinsAndNoMorePlaces() {
        String token = null;
        for (int i = 0; i < 3; i++) {
            token = anonymousJoin("203.0.113.7").returnResult(byte[].class).getResponseHeaders().getFirst("Queue-Token");
        }
        anonymousJoin("203.0.113.7").expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().exists("Retry-After")
                .expectBody().jsonPath("$.error").isEqualTo("too_many_joins");
        assertThat(redis.commands().zcard("qg:{42}:wait") + redis.commands().zcard("qg:{42}:active")).isEqualTo(3);
        // Polling with the token one got is not a join and is never limited.
        client.get().uri("/api/products/42").header("Queue-Token", token).header("X-Forwarded-For", "203.0.113.7")
                .exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectBody().jsonPath("$.status").isEqualTo("WAITING");
        // Another client behind the same trusted proxy has its own count.
        anonymousJoin("198.51.100.1").expectBody().jsonPath("$.status").isEqualTo("WAITING");
    }

    @Test
    void aClientCannotPickItsAddressPastTheTrustedProxy() {
        // The proxy appends the address it saw; what the client wrote before it is not believed.
        for (int i = 0; i < 3; i++) {
            client.get().uri("/api/products/42").header("X-Forwarded-For", "10.9.9." + i + ", 203.0.113.9")
                    .exchange().expectStatus().value(status -> assertThat(status).isIn(200, 429));
        }
        client.get().uri("/api/products/42").header("X-Forwarded-For", "10.9.9.99, 203.0.113.9").exchange()
                .expectBody().jsonPath("$.error").isEqualTo("too_many_joins");
    }

    @Test
    void aSignedInUserCannotCreateUnboundedQueues() {
        for (int i = 0; i < 3; i++) {
            client.get().uri("/api/products/p" + i).header("X-User-Id", "mallory").exchange()
                    .expectStatus().isOk();
        }
        client.get().uri("/api/products/p3").header("X-User-Id", "mallory").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectBody().jsonPath("$.error").isEqualTo("too_many_joins");
        assertThat(redis.commands().keys("qg:{p3}:*")).isEmpty();
    }

    @Test
    void queuesNobodyVisitsExpireOnTheirOwn() {
        client.get().uri("/api/products/42").header("X-User-Id", "alice").exchange().expectStatus().isOk();
        client.get().uri("/api/products/42").header("X-User-Id", "bob").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
        long expected = java.time.Duration.ofHours(2).plusMinutes(10).toMillis();
        for (String key : new String[] { "qg:{42}:wait", "qg:{42}:active", "qg:{42}:seq", "qg:{42}:settings" }) {
            assertThat(redis.commands().pttl(key)).as(key).isBetween(expected - 60_000, expected);
        }
    }

    @Test
    void anOversizedBodyIsRefusedBeforeRedisOrTheShop() {
        client.post().uri("/api/products/42/orders").header("X-User-Id", "alice")
                .bodyValue("x".repeat(2048)).exchange()
                .expectStatus().isEqualTo(HttpStatus.CONTENT_TOO_LARGE)
                .expectBody().jsonPath("$.error").isEqualTo("content_too_large");
        assertThat(redis.commands().keys("qg:*")).isEmpty();
        backend.verify(0, anyRequestedFor(anyUrl()));
    }

    private WebTestClient.ResponseSpec anonymousJoin(String clientAddress) {
        return client.get().uri("/api/products/42").header("X-Forwarded-For", clientAddress).exchange();
    }
}
