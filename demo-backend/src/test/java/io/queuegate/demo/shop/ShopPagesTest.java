package io.queuegate.demo.shop;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.BodyInserters;

/**
 * A browser that QueueGate lets through lands on the product's page, not on its JSON: the page
 * names the product, its price and the units left, and orders one with a form that works without
 * JavaScript, in English or in Korean as the shopper chose on the waiting room's switch. Every
 * other client still gets JSON, and every answer still says the stock in {@code Queue-Stock}.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "shop.products[0].id=42",
        "shop.products[0].name=Limited sneakers",
        "shop.products[0].price=14900",
        "shop.products[0].stock=5",
        "shop.products[1].id=one",
        "shop.products[1].name=Last <pair> & co",
        "shop.products[1].price=999",
        "shop.products[1].stock=1",
})
class ShopPagesTest {

    private static final String BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

    @LocalServerPort
    private int port;

    private WebTestClient client;

    @BeforeEach
    void setUp() {
        client = WebTestClient.bindToServer().baseUrl("http://localhost:" + port).build();
    }

    @Test
    void aBrowserGetsTheProductPageWithAFormThatBuysOne() {
        String page = client.get().uri("/api/products/42").header("Accept", BROWSER).exchange()
                .expectStatus().isOk()
                .expectHeader().contentTypeCompatibleWith(MediaType.TEXT_HTML)
                .expectHeader().valueEquals(ShopController.STOCK_HEADER, "5")
                .expectHeader().valueMatches("Content-Security-Policy", ".*form-action 'self'.*")
                .expectBody(String.class).returnResult().getResponseBody();
        assertThat(page).contains("<html lang=\"en\">").contains("<title>Limited sneakers · Demo shop</title>")
                .contains("<h1>Limited sneakers</h1>").contains("149.00").contains("5 left")
                .contains("<form method=\"post\" action=\"/api/products/42/orders\">")
                .contains("<button type=\"submit\">Buy one</button>");
    }

    @Test
    void everyOtherClientStillGetsJson() {
        for (String accept : new String[] { "*/*", "application/json", "application/json, text/html;q=0.5" }) {
            client.get().uri("/api/products/42").header("Accept", accept).exchange()
                    .expectStatus().isOk()
                    .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_JSON)
                    .expectBody().jsonPath("$.name").isEqualTo("Limited sneakers");
        }
    }

    @Test
    void theShoppersChoiceOfKoreanWinsOverTheBrowsersLanguage() {
        String page = client.get().uri("/api/products/42").header("Accept", BROWSER)
                .header("Accept-Language", "en-US").cookie("queue_lang", "ko").exchange()
                .expectStatus().isOk().expectBody(String.class).returnResult().getResponseBody();
        assertThat(page).contains("<html lang=\"ko\">").contains("남은 수량 5개").contains("1개 구매");
        assertThat(client.get().uri("/api/products/42").header("Accept", BROWSER).header("Accept-Language", "ko-KR")
                .exchange().expectBody(String.class).returnResult().getResponseBody()).contains("<html lang=\"ko\">");
    }

    @Test
    void theFormOrdersOneAndSaysSoAndSoldOutIsAPageToo() {
        String placed = client.post().uri("/api/products/one/orders").header("Accept", BROWSER)
                .contentType(MediaType.APPLICATION_FORM_URLENCODED).body(BodyInserters.fromFormData("quantity", "1"))
                .exchange()
                .expectStatus().isCreated()
                .expectHeader().valueEquals(ShopController.STOCK_HEADER, "0")
                .expectHeader().contentTypeCompatibleWith(MediaType.TEXT_HTML)
                .expectBody(String.class).returnResult().getResponseBody();
        assertThat(placed).contains("<h1>Thank you</h1>").containsPattern("Order [0-9]+ is placed: 1 × ")
                .contains("Last &lt;pair&gt; &amp; co").doesNotContain("<pair>");

        String soldOut = client.post().uri("/api/products/one/orders").header("Accept", BROWSER)
                .contentType(MediaType.APPLICATION_FORM_URLENCODED).body(BodyInserters.fromFormData("quantity", "1"))
                .exchange()
                .expectStatus().isEqualTo(409)
                .expectHeader().valueEquals(ShopController.STOCK_HEADER, "0")
                .expectBody(String.class).returnResult().getResponseBody();
        assertThat(soldOut).contains("<h1>Not ordered</h1>").contains("Not enough stock left");
        assertThat(client.get().uri("/api/products/one").header("Accept", BROWSER).exchange()
                .expectBody(String.class).returnResult().getResponseBody()).contains("Sold out");
    }
}
