package io.queuegate.admission;

import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import io.queuegate.support.GatewayFixture;
import io.queuegate.support.LooseShop;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.web.reactive.server.EntityExchangeResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Product ids that differ only in letter case are one product by default, since a shop that routes
 * without regard to case serves {@code RD1} and {@code rd1} alike: two lines would let a shopper
 * waiting in one buy through the other. A route whose shop's ids are case-sensitive keeps them apart
 * ({@code product-id-case: keep}).
 */
class ProductIdCaseTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1",
                    "complete-on", "POST /api/products/{productId}/orders"))
            .withRoute("items", Map.of("predicates[0]", "Path=/api/items/{productId}",
                    "metadata.queue.max-active", "1", "metadata.queue.product-id-case", "keep"))
            .with("queuegate.products.RD1.display-name", "Red dress");

    @BeforeEach
    void shopReadsPathsLoosely() {
        LooseShop.readsPathsLoosely(fixture.backend());
        fixture.backend().stubFor(com.github.tomakehurst.wiremock.client.WireMock.get(
                com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching("/api/items/.*"))
                .willReturn(com.github.tomakehurst.wiremock.client.WireMock.aResponse().withStatus(200)));
    }

    @Test
    void idsThatDifferOnlyInCaseAreOneLine() {
        assertThat(get("/api/products/RD1", "alice").getStatus().value()).isEqualTo(200);
        EntityExchangeResult<String> bob = get("/api/products/rd1", "bob");
        assertThat(bob.getStatus().value()).isEqualTo(429);
        assertThat((String) JsonPath.read(bob.getResponseBody(), "$.productId")).isEqualTo("rd1");
        assertThat(get("/api/products/Rd1.json", "carol").getStatus().value()).isEqualTo(429);
        assertThat(fixture.redis().commands().exists("qg:{RD1}:active")).isZero();
    }

    @Test
    void aProductsSettingsAreFoundWhateverTheCaseOfItsKey() {
        get("/api/products/rd1", "alice");
        EntityExchangeResult<String> page = fixture.client().get().uri("/api/products/RD1")
                .header("X-User-Id", "bob").header("Accept", "text/html").exchange()
                .expectBody(String.class).returnResult();
        assertThat(page.getStatus().value()).isEqualTo(429);
        assertThat(page.getResponseBody()).contains("Red dress");
    }

    @Test
    void aRouteThatKeepsCaseKeepsTwoLines() {
        assertThat(get("/api/items/RD1", "alice").getStatus().value()).isEqualTo(200);
        assertThat(get("/api/items/rd1", "bob").getStatus().value()).isEqualTo(200);
    }

    private static EntityExchangeResult<String> get(String path, String user) {
        return fixture.client().get().uri(path).header("X-User-Id", user).exchange().expectBody(String.class)
                .returnResult();
    }
}
