package io.queuegate.demo.shop;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.web.reactive.server.WebTestClient;

// runs against the seeded catalogue in application.yml, which the demo and the benchmarks rely on
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class CatalogueTest {

    @LocalServerPort
    private int port;

    @Test
    void listsTheSeededProductsInTheConfiguredOrder() {
        client().get().uri("/api/products").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.length()").isEqualTo(3)
                .jsonPath("$[0].id").isEqualTo("42")
                .jsonPath("$[0].name").isEqualTo("Limited sneakers")
                .jsonPath("$[0].price").isEqualTo(14900)
                .jsonPath("$[0].stock").isEqualTo(100)
                .jsonPath("$[1].id").isEqualTo("7")
                .jsonPath("$[1].name").isEqualTo("Concert ticket")
                .jsonPath("$[1].stock").isEqualTo(50)
                .jsonPath("$[2].id").isEqualTo("1")
                .jsonPath("$[2].name").isEqualTo("T-shirt")
                .jsonPath("$[2].stock").isEqualTo(1000);
    }

    @Test
    void showsOneProductWithItsRemainingStock() {
        client().get().uri("/api/products/7").exchange()
                .expectStatus().isOk()
                .expectBody()
                .json("{\"id\":\"7\",\"name\":\"Concert ticket\",\"price\":8900,\"stock\":50}", true);
    }

    private WebTestClient client() {
        return WebTestClient.bindToServer().baseUrl("http://localhost:" + port).build();
    }
}
