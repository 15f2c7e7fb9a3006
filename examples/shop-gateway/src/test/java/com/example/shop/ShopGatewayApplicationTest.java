package com.example.shop;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.Lines;
import io.queuegate.support.RedisProcess;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A gateway that only depends on the plain queuegate-gateway jar protects its route by route
 * metadata alone, and leaves its other routes alone.
 */
class ShopGatewayApplicationTest {

    private static RedisProcess redis;
    private static WireMockServer shop;
    private static ConfigurableApplicationContext gateway;
    private static WebTestClient client;

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        shop = Backend.start();
        gateway = new SpringApplicationBuilder(ShopGatewayApplication.class).run(
                "--server.port=0",
                "--SHOP_URI=" + shop.baseUrl(),
                "--QUEUEGATE_TOKEN_SECRET=the-shops-own-secret-of-at-least-32-bytes",
                "--spring.data.redis.port=" + redis.port());
        int port = ((WebServerApplicationContext) gateway).getWebServer().getPort();
        client = WebTestClient.bindToServer().baseUrl("http://localhost:" + port).build();
    }

    @AfterAll
    static void stop() {
        gateway.close();
        shop.stop();
        redis.close();
    }

    @Test
    void theRouteWithAQueueBlockIsProtectedAndTheOthersAreNot() {
        client.get().uri("/api/products/42").header("X-User-Id", "alice").exchange()
                .expectStatus().isOk().expectHeader().exists("Queue-Token");
        client.get().uri("/api/products/42").header("X-User-Id", "bob").exchange()
                .expectStatus().isEqualTo(429)
                .expectHeader().valueEquals("Queue-Rank", "1")
                .expectBody().jsonPath("$.status").isEqualTo("WAITING");
        client.get().uri("/open/anything").header("X-User-Id", "bob").exchange()
                .expectStatus().isOk().expectHeader().doesNotExist("Queue-Token");
        assertThat(Lines.of(redis.commands(), "42")).containsExactly("bob");
    }
}
