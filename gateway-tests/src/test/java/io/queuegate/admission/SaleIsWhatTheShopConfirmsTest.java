package io.queuegate.admission;

import java.util.Map;

import io.queuegate.support.GatewayFixture;
import io.queuegate.support.LooseShop;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.web.reactive.server.EntityExchangeResult;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A sale is what the shop confirms: a {@code 2xx} answer to the completing request. A refused order
 * answered with a redirect back to the cart (a server-rendered shop's way) or with
 * {@code Queue-Release} ends the session as a leave and counts nothing against the stock; a route
 * whose shop redirects only after a successful order says so ({@code complete-on-redirect: sale}).
 * The shop's {@code Queue-Stock} moves the stock either way.
 */
class SaleIsWhatTheShopConfirmsTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "3", "stock", "3",
                    "complete-on", "POST /api/products/{productId}/orders", "product-id-pattern", "[1-9][0-9]*"))
            .with("queuegate.products.11.complete-on-redirect", "sale")
            .withOpenRoute("everything-else", "/**");

    @BeforeEach
    void shopReadsPathsLoosely() {
        LooseShop.readsPathsLoosely(fixture.backend());
    }

    @Test
    void threeOrdersTheShopRefusedWithARedirectSellNothing() {
        LooseShop.redirectsRefusedOrders(fixture.backend());
        for (String user : new String[] {"a", "b", "c"}) {
            String token = admitted("10", user);
            EntityExchangeResult<String> order = order("10", user, token);
            assertThat(order.getStatus().value()).isEqualTo(303);
        }
        assertThat(stock("10")).as("nothing was sold").isEqualTo("3");
        assertThat(fixture.redis().commands().zcard("qg:{10}:active")).as("each place freed").isZero();
        admitted("10", "honest");
    }

    @Test
    void aRouteWhoseShopRedirectsOnlyAfterASaleCountsTheRedirect() {
        LooseShop.redirectsPlacedOrders(fixture.backend());
        String token = admitted("11", "a");
        assertThat(order("11", "a", token).getStatus().value()).isEqualTo(303);
        assertThat(stock("11")).isEqualTo("2");
        assertThat(order("11", "a", token).getStatus().value()).as("one admission, one purchase").isEqualTo(409);
    }

    @Test
    void aReleaseFromTheShopEndsTheSessionWithoutASale() {
        fixture.backend().stubFor(get(urlPathEqualTo("/api/products/12/cart")).atPriority(1)
                .willReturn(aResponse().withStatus(200).withHeader("Queue-Release", "true")));
        String token = admitted("12", "a");
        fixture.client().get().uri("/api/products/12/cart").header("X-User-Id", "a").header("Queue-Token", token)
                .exchange().expectStatus().isOk();
        assertThat(fixture.redis().commands().zcard("qg:{12}:active")).isZero();
        assertThat(stock("12")).isEqualTo("3");
    }

    @Test
    void theShopsWordRaisesTheStockAndAdmitsTheLine() {
        fixture.backend().stubFor(post(urlPathEqualTo("/api/products/13/orders")).atPriority(1)
                .willReturn(aResponse().withStatus(201).withHeader("Queue-Stock", "0")));
        String[] tokens = {admitted("13", "a"), admitted("13", "b"), admitted("13", "c")};
        assertThat(order("13", "a", tokens[0]).getStatus().value()).isEqualTo(201);
        fixture.client().get().uri("/api/products/13").header("X-User-Id", "d").exchange().expectStatus().isEqualTo(410);

        fixture.backend().stubFor(get(urlPathEqualTo("/api/products/13")).atPriority(1)
                .willReturn(aResponse().withStatus(200).withHeader("Queue-Stock", "10")));
        fixture.client().get().uri("/api/products/13").header("X-User-Id", "b").header("Queue-Token", tokens[1])
                .exchange().expectStatus().isOk();
        assertThat(stock("13")).as("a restock the shop said").isEqualTo("10");
        admitted("13", "d");
    }

    private static String admitted(String product, String user) {
        EntityExchangeResult<String> answer = fixture.client().get().uri("/api/products/" + product)
                .header("X-User-Id", user).exchange().expectBody(String.class).returnResult();
        assertThat(answer.getStatus().value()).as("%s on %s: %s", user, product, answer.getResponseBody())
                .isEqualTo(200);
        return answer.getResponseHeaders().getFirst("Queue-Token");
    }

    private static EntityExchangeResult<String> order(String product, String user, String token) {
        return fixture.client().post().uri("/api/products/" + product + "/orders").header("X-User-Id", user)
                .header("Queue-Token", token).bodyValue("{\"quantity\":1}").exchange().expectBody(String.class)
                .returnResult();
    }

    private static String stock(String product) {
        return fixture.redis().commands().hget("qg:{" + product + "}:settings", "stock");
    }
}
