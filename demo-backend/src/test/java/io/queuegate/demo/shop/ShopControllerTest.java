package io.queuegate.demo.shop;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.client.WebClient;

import reactor.core.publisher.Flux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

// a catalogue of its own, so that each test owns the stock it drains and the tests do not depend on their order
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "shop.products[0].id=race",
        "shop.products[0].name=Race",
        "shop.products[0].stock=50",
        "shop.products[1].id=tee",
        "shop.products[1].name=Tee",
        "shop.products[1].price=1999",
        "shop.products[1].stock=1000",
        "shop.products[2].id=pair",
        "shop.products[2].name=Pair",
        "shop.products[2].stock=2",
        "shop.products[3].id=steady",
        "shop.products[3].name=Steady",
        "shop.products[3].stock=20",
        "shop.products[4].id=last",
        "shop.products[4].name=Last",
        "shop.products[4].stock=3",
})
class ShopControllerTest {

    private static final ParameterizedTypeReference<Map<String, Object>> JSON_OBJECT =
            new ParameterizedTypeReference<>() {
            };

    @LocalServerPort
    private int port;

    private WebTestClient client;

    @BeforeEach
    void setUp() {
        client = WebTestClient.bindToServer().baseUrl("http://localhost:" + port).build();
    }

    @Test
    void sellsExactlyTheStockWhenTwoHundredOrdersRaceForFifty() {
        int orders = 200;
        // the default pool queues only a few acquisitions per connection; allow all 200 to be in flight at once
        ConnectionProvider connections = ConnectionProvider.builder("race")
                .maxConnections(orders)
                .pendingAcquireMaxCount(-1)
                .build();
        try {
            WebClient webClient = WebClient.builder()
                    .baseUrl("http://localhost:" + port)
                    .clientConnector(new ReactorClientHttpConnector(HttpClient.create(connections)))
                    .build();

            List<Reply> replies = Flux.range(0, orders)
                    .flatMap(i -> webClient.post().uri("/api/products/race/orders")
                            .header(ShopController.USER_ID_HEADER, "user-" + i)
                            .contentType(MediaType.APPLICATION_JSON)
                            .bodyValue(Map.of("quantity", 1))
                            .exchangeToMono(response -> response.bodyToMono(JSON_OBJECT)
                                    .map(body -> new Reply(response.statusCode().value(), body))), orders)
                    .collectList()
                    .block(Duration.ofSeconds(30));

            Map<Integer, Long> byStatus = replies.stream()
                    .collect(Collectors.groupingBy(Reply::status, Collectors.counting()));
            assertThat(byStatus).containsOnly(Map.entry(201, 50L), Map.entry(409, 150L));
            // each unit sold once: the stock left after each successful order is a distinct value from 49 down to 0
            assertThat(replies.stream().filter(r -> r.status() == 201).map(r -> r.body().get("remaining")))
                    .containsExactlyInAnyOrderElementsOf(IntStream.range(0, 50).boxed().toList());
            assertThat(replies.stream().filter(r -> r.status() == 409).map(r -> r.body().get("error")))
                    .containsOnly("sold_out");
            client.get().uri("/api/products/race").exchange()
                    .expectStatus().isOk()
                    .expectBody().jsonPath("$.stock").isEqualTo(0);
        } finally {
            connections.disposeLater().block(Duration.ofSeconds(10));
        }
    }

    @Test
    void ordersOneWhenTheBodyIsEmptyAndRecordsTheUser() {
        int before = stockOf("tee");

        client.post().uri("/api/products/tee/orders")
                .header(ShopController.USER_ID_HEADER, "alice")
                .exchange()
                .expectStatus().isCreated()
                .expectBody()
                .jsonPath("$.orderId").isNumber()
                .jsonPath("$.productId").isEqualTo("tee")
                .jsonPath("$.quantity").isEqualTo(1)
                .jsonPath("$.remaining").isEqualTo(before - 1)
                .jsonPath("$.userId").isEqualTo("alice");
    }

    @Test
    void ordersTheRequestedQuantity() {
        int before = stockOf("tee");

        client.post().uri("/api/products/tee/orders")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"quantity\": 10}")
                .exchange()
                .expectStatus().isCreated()
                .expectBody()
                .jsonPath("$.quantity").isEqualTo(10)
                .jsonPath("$.remaining").isEqualTo(before - 10)
                .jsonPath("$.userId").doesNotExist();
        assertThat(stockOf("tee")).isEqualTo(before - 10);
    }

    @Test
    void rejectsQuantitiesOutsideOneToTenWithoutTouchingTheStock() {
        for (int quantity : new int[] {0, -1, 11}) {
            client.post().uri("/api/products/steady/orders")
                    .contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("quantity", quantity))
                    .exchange()
                    .expectStatus().isBadRequest()
                    .expectBody()
                    .jsonPath("$.error").isEqualTo("invalid_quantity")
                    .jsonPath("$.message").isNotEmpty();
        }
        assertThat(stockOf("steady")).isEqualTo(20);
    }

    @Test
    void rejectsABodyThatIsNotJson() {
        client.post().uri("/api/products/steady/orders")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"quantity\":")
                .exchange()
                .expectStatus().isBadRequest()
                .expectBody().jsonPath("$.error").isEqualTo("invalid_request");
        assertThat(stockOf("steady")).isEqualTo(20);
    }

    @Test
    void answersSoldOutWhenTheStockCannotCoverTheQuantity() {
        order("pair", 3).expectStatus().isEqualTo(409)
                .expectBody()
                .jsonPath("$.error").isEqualTo("sold_out")
                .jsonPath("$.message").isNotEmpty();
        assertThat(stockOf("pair")).isEqualTo(2);

        order("pair", 2).expectStatus().isCreated()
                .expectBody().jsonPath("$.remaining").isEqualTo(0);
        order("pair", 1).expectStatus().isEqualTo(409)
                .expectBody().jsonPath("$.error").isEqualTo("sold_out");
    }

    @Test
    void tellsTheGatewayTheUnitsLeftOnEveryProductAndOrderAnswerSoldOutIncluded() {
        client.get().uri("/api/products/last").exchange()
                .expectStatus().isOk()
                .expectHeader().valueEquals(ShopController.STOCK_HEADER, "3");

        order("last", 2).expectStatus().isCreated()
                .expectHeader().valueEquals(ShopController.STOCK_HEADER, "1")
                .expectBody().jsonPath("$.remaining").isEqualTo(1);
        // Not enough for two: refused, and the one unit left is still said.
        order("last", 2).expectStatus().isEqualTo(409)
                .expectHeader().valueEquals(ShopController.STOCK_HEADER, "1")
                .expectBody().jsonPath("$.error").isEqualTo("sold_out");
        order("last", 1).expectStatus().isCreated()
                .expectHeader().valueEquals(ShopController.STOCK_HEADER, "0");
        order("last", 1).expectStatus().isEqualTo(409)
                .expectHeader().valueEquals(ShopController.STOCK_HEADER, "0");
        client.get().uri("/api/products/last").exchange()
                .expectHeader().valueEquals(ShopController.STOCK_HEADER, "0")
                .expectBody().jsonPath("$.stock").isEqualTo(0);
    }

    @Test
    void saysNoStockWhereThereIsNoProductOrNoOrder() {
        client.get().uri("/api/products/nope").exchange()
                .expectStatus().isNotFound()
                .expectHeader().doesNotExist(ShopController.STOCK_HEADER);
        client.get().uri("/api/products").exchange()
                .expectStatus().isOk()
                .expectHeader().doesNotExist(ShopController.STOCK_HEADER);
    }

    @Test
    void answersNotFoundForAnUnknownProduct() {
        client.get().uri("/api/products/nope").exchange()
                .expectStatus().isNotFound()
                .expectBody()
                .jsonPath("$.error").isEqualTo("not_found")
                .jsonPath("$.message").isNotEmpty();
        order("nope", 1).expectStatus().isNotFound()
                .expectBody().jsonPath("$.error").isEqualTo("not_found");
    }

    private WebTestClient.ResponseSpec order(String productId, int quantity) {
        return client.post().uri("/api/products/{id}/orders", productId)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("quantity", quantity))
                .exchange();
    }

    private int stockOf(String productId) {
        Map<?, ?> product = client.get().uri("/api/products/{id}", productId).exchange()
                .expectStatus().isOk()
                .expectBody(Map.class).returnResult().getResponseBody();
        return ((Number) product.get("stock")).intValue();
    }

    private record Reply(int status, Map<String, Object> body) {
    }
}
