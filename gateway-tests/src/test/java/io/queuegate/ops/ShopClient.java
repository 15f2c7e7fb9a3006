package io.queuegate.ops;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

import io.queuegate.support.GatewayInstance;

import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/** Shoppers' and operators' requests to one gateway, as the operations tests make them. */
final class ShopClient {

    private final WebTestClient client;

    ShopClient(GatewayInstance gateway) {
        this.client = gateway.client().mutate().responseTimeout(Duration.ofSeconds(10)).build();
    }

    WebTestClient raw() {
        return client;
    }

    WebTestClient.ResponseSpec get(String productId, String user, String token) {
        WebTestClient.RequestHeadersSpec<?> spec = client.get().uri("/api/products/" + productId)
                .header("X-User-Id", user);
        return token == null ? spec.exchange() : spec.header("Queue-Token", token).exchange();
    }

    WebTestClient.ResponseSpec order(String productId, String user, String token) {
        return client.post().uri("/api/products/" + productId + "/orders")
                .header("X-User-Id", user).header("Queue-Token", token).exchange();
    }

    WebTestClient.ResponseSpec status(String productId, String user, String token) {
        return client.get().uri("/queue/" + productId + "/status")
                .header("X-User-Id", user).header("Queue-Token", token).exchange();
    }

    WebTestClient.ResponseSpec leave(String productId, String user, String token) {
        return client.delete().uri("/queue/" + productId)
                .header("X-User-Id", user).header("Queue-Token", token).exchange();
    }

    WebTestClient.ResponseSpec operate(String productId, String body) {
        return client.post().uri("/actuator/queues/" + productId)
                .header("Content-Type", "application/json").bodyValue(body).exchange();
    }

    String prometheus() {
        return client.get().uri("/actuator/prometheus").exchange()
                .expectStatus().isOk()
                .expectBody(String.class).returnResult().getResponseBody();
    }

    static String tokenOf(WebTestClient.ResponseSpec response) {
        String token = response.expectBody().returnResult().getResponseHeaders().getFirst("Queue-Token");
        assertThat(token).isNotBlank();
        return token;
    }

    /** The token's claims as JSON text (the signature is the gateway's business, not this test's). */
    static String claimsOf(String token) {
        return new String(Base64.getUrlDecoder().decode(token.split("\\.")[1]), StandardCharsets.UTF_8);
    }
}
