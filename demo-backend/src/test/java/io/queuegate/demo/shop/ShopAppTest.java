package io.queuegate.demo.shop;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The shop serves its single-page app at /shop/, as the demo gateway's route forwards it: the page,
 * and its script as JavaScript, which a browser requires of a module.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class ShopAppTest {

    @LocalServerPort
    private int port;

    private WebTestClient client;

    @BeforeEach
    void setUp() {
        client = WebTestClient.bindToServer().baseUrl("http://localhost:" + port).build();
    }

    @Test
    void servesThePageAndItsModule() {
        client.get().uri("/shop/index.html").exchange()
                .expectStatus().isOk()
                .expectHeader().value("Content-Type", type -> assertThat(type).startsWith("text/html"))
                .expectBody(String.class).value(page -> assertThat(page)
                        .contains("<script type=\"module\" src=\"/shop/shop.js\"></script>"));
        client.get().uri("/shop/shop.js").exchange()
                .expectStatus().isOk()
                .expectHeader().value("Content-Type", type -> assertThat(type).matches("(text|application)/javascript.*"))
                .expectBody(String.class).value(script -> assertThat(script)
                        .contains("import { QueueClient, QueueError } from '/queue/client.js';"));
    }
}
