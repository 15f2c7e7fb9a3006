package io.queuegate.config;

import org.junit.jupiter.api.Test;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

import static org.assertj.core.api.Assertions.assertThat;

class CompletionRuleTest {

    private static final CompletionRule ORDER = CompletionRule.parse("POST /api/products/{productId}/orders");
    private static final CompletionRule CHECKOUT = CompletionRule.parse("GET /api/products/{productId}/checkout");

    @Test
    void matchesItsMethodAndPathExactly() {
        assertThat(ORDER.matches(MockServerHttpRequest.post("/api/products/42/orders").build())).isTrue();
        assertThat(ORDER.matches(MockServerHttpRequest.put("/api/products/42/orders").build())).isFalse();
        assertThat(ORDER.matches(MockServerHttpRequest.post("/api/products/42/ORDERS").build())).isFalse();
        assertThat(CompletionRule.NONE.matches(MockServerHttpRequest.post("/api/products/42/orders").build()))
                .isFalse();
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
