package io.queuegate.web;

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
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A route's or product's {@code display-name} on the waiting page: the page and its title name
 * the product as shoppers know it, in English and Korean, and a name is text, never markup.
 */
class DisplayNameTest {

    private static RedisProcess redis;
    private static WireMockServer backend;
    private static GatewayInstance gateway;

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        backend = Backend.start();
        Map<String, Object> properties = GatewayInstance.defaults(redis, backend.baseUrl(), Map.of(
                "max-active", "1",
                "display-name", "Limited sneakers"));
        properties.put("queuegate.products.99.display-name", "<script>alert(1)</script> & \"Friends\"");
        gateway = GatewayInstance.start(properties);
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
    }

    @Test
    void theWaitingPageAndItsTitleNameTheProductAsShoppersKnowIt() {
        join("42", "holder");
        String page = page("42", "en");

        assertThat(page).contains("<title>You are in line for Limited sneakers</title>")
                .contains("There is high demand for Limited sneakers, so shoppers are let in one at a time")
                .doesNotContain("demand for 42");
        assertThat(page("42", "ko")).contains("<title>Limited sneakers 구매 대기 중입니다</title>")
                .contains("Limited sneakers 상품에 구매자가 몰려");
    }

    @Test
    void aDisplayNameIsEscapedNeverMarkup() {
        join("99", "holder");
        String page = page("99", "en");

        assertThat(page).contains("for &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Friends&quot;")
                .doesNotContain("<script>alert(1)");
    }

    @Test
    void jsonClientsStillGetTheProductId() {
        join("42", "holder");
        client().get().uri("/api/products/42").header("X-User-Id", "someone").accept(MediaType.APPLICATION_JSON)
                .exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectBody().jsonPath("$.productId").isEqualTo("42");
    }

    private static void join(String productId, String user) {
        client().get().uri("/api/products/" + productId).header("X-User-Id", user).exchange().expectStatus().isOk();
    }

    private static String page(String productId, String language) {
        return client().get().uri("/api/products/" + productId).header("X-User-Id", "shopper-" + language)
                .accept(MediaType.TEXT_HTML).header("Accept-Language", language).exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectBody(String.class).returnResult().getResponseBody();
    }

    private static WebTestClient client() {
        return gateway.client();
    }
}
