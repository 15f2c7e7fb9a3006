package io.queuegate.web;

import java.util.Map;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An app on another origin, with the global CORS settings docs/client.md gives: it may call the
 * protected route and follow its place on the status and events endpoints with its Queue-Token
 * header, and read the headers it needs; an origin the settings do not name may not. Without
 * global CORS, the endpoints answer no CORS header at all.
 */
class QueueEndpointsCorsTest {

    private static final String APP = "https://app.example";
    private static final String CORS = "spring.cloud.gateway.server.webflux.globalcors.cors-configurations.[/**].";

    private static RedisProcess redis;
    private static WireMockServer backend;
    private static GatewayInstance gateway;
    private static GatewayInstance withoutCors;

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        backend = Backend.start();
        Map<String, Object> properties = GatewayInstance.defaults(redis, backend.baseUrl(), Map.of("max-active", "1"));
        withoutCors = GatewayInstance.start(Map.copyOf(properties));
        properties.put(CORS + "allowed-origins", APP);
        properties.put(CORS + "allowed-methods", "GET,POST,DELETE");
        properties.put(CORS + "allowed-headers", "Queue-Token,Queue-Challenge,Content-Type");
        gateway = GatewayInstance.start(properties);
    }

    @AfterAll
    static void stop() {
        gateway.close();
        withoutCors.close();
        backend.stop();
        redis.close();
    }

    @Test
    void anAppOnTheAllowedOriginJoinsAndFollowsItsPlaceWithItsTokenHeader() {
        preflight(gateway, "/api/products/42", "GET", APP).expectStatus().isOk()
                .expectHeader().valueEquals("Access-Control-Allow-Origin", APP);
        join("holder");
        String token = gateway.client().get().uri("/api/products/42").header("X-User-Id", "waiting")
                .header("Origin", APP).exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().valueEquals("Access-Control-Allow-Origin", APP)
                .expectHeader().value("Access-Control-Expose-Headers", exposed -> assertThat(exposed)
                        .contains("Queue-Token").contains("Retry-After").contains("Queue-Rank"))
                .returnResult(String.class).getResponseHeaders().getFirst("Queue-Token");

        for (String path : new String[] { "/queue/42/status", "/queue/42/events" }) {
            preflight(gateway, path, "GET", APP).expectStatus().isOk()
                    .expectHeader().valueEquals("Access-Control-Allow-Origin", APP)
                    .expectHeader().value("Access-Control-Allow-Headers", allowed ->
                            assertThat(allowed.toLowerCase()).contains("queue-token"));
        }
        preflight(gateway, "/queue/42", "DELETE", APP).expectStatus().isOk()
                .expectHeader().valueEquals("Access-Control-Allow-Origin", APP);
        gateway.client().get().uri("/queue/42/status").header("Origin", APP).header("Queue-Token", token)
                .header("X-User-Id", "waiting").exchange()
                .expectStatus().isOk()
                .expectHeader().valueEquals("Access-Control-Allow-Origin", APP)
                .expectBody().jsonPath("$.rank").isEqualTo(1);
    }

    @Test
    void anotherOriginIsRefusedAndWithoutGlobalCorsNoOriginIsAllowed() {
        preflight(gateway, "/queue/42/status", "GET", "https://elsewhere.example")
                .expectStatus().isForbidden()
                .expectHeader().doesNotExist("Access-Control-Allow-Origin");
        preflight(withoutCors, "/queue/42/status", "GET", APP)
                .expectHeader().doesNotExist("Access-Control-Allow-Origin");
    }

    private static org.springframework.test.web.reactive.server.WebTestClient.ResponseSpec preflight(
            GatewayInstance instance, String path, String method, String origin) {
        return instance.client().method(HttpMethod.OPTIONS).uri(path)
                .header("Origin", origin)
                .header("Access-Control-Request-Method", method)
                .header("Access-Control-Request-Headers", "queue-token")
                .exchange();
    }

    private static void join(String user) {
        gateway.client().get().uri("/api/products/42").header("X-User-Id", user).exchange()
                .expectStatus().isOk();
    }
}
