package io.queuegate.config;

import org.junit.jupiter.api.Test;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

import static org.assertj.core.api.Assertions.assertThat;

class CompletionRuleTest {

    private static final CompletionRule ORDER = CompletionRule.parse("POST /api/products/{productId}/orders");
    private static final CompletionRule CHECKOUT = CompletionRule.parse("GET /api/products/{productId}/checkout");

    @Test
    void matchesItsMethodAndPath() {
        assertThat(ORDER.matches(MockServerHttpRequest.post("/api/products/42/orders").build())).isTrue();
        assertThat(ORDER.matches(MockServerHttpRequest.put("/api/products/42/orders").build())).isFalse();
        assertThat(ORDER.matches(MockServerHttpRequest.post("/api/products/42/order").build())).isFalse();
        assertThat(ORDER.matches(MockServerHttpRequest.post("/api/products/42/orders/17").build())).isFalse();
        assertThat(CompletionRule.NONE.matches(MockServerHttpRequest.post("/api/products/42/orders").build()))
                .isFalse();
    }

    /** Express and ASP.NET route in any letter case, Rails with a format suffix: the same order. */
    @Test
    void matchesTheOrderAsLooselyAsAShopReadsIt() {
        for (String path : new String[] {"/api/products/42/ORDERS", "/API/Products/42/Orders",
                "/api/products/42/orders.json", "/api/products/42/Orders.XML"}) {
            assertThat(ORDER.matches(MockServerHttpRequest.post(path).build())).as(path).isTrue();
        }
        assertThat(ORDER.matches(MockServerHttpRequest.method(org.springframework.http.HttpMethod.valueOf("post"),
                java.net.URI.create("/api/products/42/orders")).build())).as("a method in lower case").isTrue();
        // Spring MVC's old suffix matching read any format: what follows the first dot is not read.
        assertThat(ORDER.matches(MockServerHttpRequest.post("/api/products/42/orders.json.bak1").build())).isTrue();
        assertThat(ORDER.matches(MockServerHttpRequest.post("/api/products/42/orders-archive").build())).isFalse();
        assertThat(ORDER.matches(MockServerHttpRequest.post("/api/products/42/orders/7").build())).isFalse();
    }

    /** A shop on Spring MVC (like many others) answers HEAD with its GET handler: the same purchase. */
    @Test
    void aHeadRequestMatchesAGetRule() {
        assertThat(CHECKOUT.matches(MockServerHttpRequest.head("/api/products/42/checkout").build())).isTrue();
        assertThat(CHECKOUT.matches(MockServerHttpRequest.get("/api/products/42/checkout").build())).isTrue();
        assertThat(ORDER.matches(MockServerHttpRequest.head("/api/products/42/orders").build())).isFalse();
        assertThat(CompletionRule.parse("HEAD /api/products/{productId}/checkout")
                .matches(MockServerHttpRequest.get("/api/products/42/checkout").build())).isFalse();
    }
}
