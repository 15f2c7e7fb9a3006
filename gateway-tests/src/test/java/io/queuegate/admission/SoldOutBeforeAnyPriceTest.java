package io.queuegate.admission;

import java.util.Map;

import io.queuegate.support.GatewayFixture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.web.reactive.server.EntityExchangeResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Nobody pays to learn that a product is sold out: a newcomer to a sold-out product is told so
 * ({@code 410 sold_out}) before any proof of work or wait, and the page names the product and says
 * the place is kept only to a shopper who holds one.
 */
class SoldOutBeforeAnyPriceTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1", "session-ttl", "10m",
                    "stock", "1", "join-challenge", "anonymous", "display-name", "Limited sneakers",
                    "complete-on", "POST /api/products/{productId}/orders"));

    @Test
    void aNewcomerToASoldOutProductIsToldSoWithoutAChallengeAndAShopperInLineHearsTheirPlaceIsKept() {
        String buyer = token(get("buyer", null, "application/json"));
        String waiter = token(get("waiter", null, "application/json"));
        assertThat(fixture.client().post().uri("/api/products/42/orders").header("X-User-Id", "buyer")
                .header("Queue-Token", buyer).exchange().returnResult(String.class).getStatus().value()).isEqualTo(201);

        EntityExchangeResult<String> json = get(null, null, "application/json");
        assertThat(json.getStatus().value()).as(json.getResponseBody()).isEqualTo(410);
        assertThat(json.getResponseBody()).contains("\"error\":\"sold_out\"").doesNotContain("challenge");

        EntityExchangeResult<String> page = get(null, null, "text/html");
        assertThat(page.getStatus().value()).isEqualTo(410);
        assertThat(page.getResponseBody()).contains("Limited sneakers has sold out").doesNotContain("place is kept")
                .doesNotContain("data-challenge");
        assertThat(page.getResponseCookies().getFirst("queue_wait")).as("no wait to serve").isNull();

        EntityExchangeResult<String> inLine = get("waiter", waiter, "text/html");
        assertThat(inLine.getStatus().value()).isEqualTo(410);
        assertThat(inLine.getResponseBody()).contains("Limited sneakers has sold out").contains("Your place is kept");
    }

    private static EntityExchangeResult<String> get(String user, String token, String accept) {
        var request = fixture.client().get().uri("/api/products/42").header("Accept", accept);
        if (user != null) {
            request = request.header("X-User-Id", user);
        }
        if (token != null) {
            request = request.header("Queue-Token", token);
        }
        return request.exchange().expectBody(String.class).returnResult();
    }

    private static String token(EntityExchangeResult<String> answer) {
        return answer.getResponseHeaders().getFirst("Queue-Token");
    }
}
