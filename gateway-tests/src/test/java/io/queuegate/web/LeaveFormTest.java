package io.queuegate.web;

import io.queuegate.support.GatewayFixture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.BodyInserters;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The waiting page's "leave the line" form ({@code POST /queue/{productId}/leave}), which works
 * without JavaScript: it gives the place up as {@code DELETE /queue/{productId}} does and answers a
 * page that says so, naming the product and linking back to the line. A page of another site
 * cannot make a shopper's browser send it.
 */
class LeaveFormTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.shopQueue(1)
            .with("queuegate.products.42.display-name", "Limited sneakers");

    /** The attacker's page posts the form from its own origin, with the shopper's cookie. */
    @Test
    void aPageOfAnotherSiteCannotMakeAShopperLeave() {
        join("holder");
        String token = join("shopper");
        for (String[] crossSite : new String[][] { { "Sec-Fetch-Site", "cross-site" }, { "Sec-Fetch-Site", "same-site" },
                { "Origin", "https://evil.example" }, { "Origin", "null" } }) {
            form(token, "/api/products/42").header(crossSite[0], crossSite[1]).exchange()
                    .expectStatus().isForbidden()
                    .expectHeader().doesNotExist(HttpHeaders.SET_COOKIE)
                    .expectBody().jsonPath("$.error").isEqualTo("cross_site_request");
        }
        fixture.client().get().uri("/queue/42/status").header("Queue-Token", token).exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.status").isEqualTo("WAITING").jsonPath("$.rank").isEqualTo(1);
    }

    @Test
    void theFormGivesThePlaceUpAndAnswersAPageThatSaysSo() {
        join("holder");
        String token = join("shopper");
        EntityExchangeResult<String> left = form(token, "/api/products/42?size=9")
                .header("Sec-Fetch-Site", "same-origin").header("Origin", fixture.gateway().baseUrl())
                .accept(MediaType.TEXT_HTML).exchange()
                .expectStatus().isOk()
                .expectHeader().contentTypeCompatibleWith(MediaType.TEXT_HTML)
                .expectBody(String.class).returnResult();
        assertThat(left.getResponseBody()).contains("<title>You have left the line</title>")
                .contains("You no longer hold a place in line for Limited sneakers.")
                .contains("<a href=\"/api/products/42?size=9\">Join the line again, at the back</a>");
        assertThat(left.getResponseHeaders().getFirst(HttpHeaders.SET_COOKIE)).startsWith("queue_token=;")
                .contains("Max-Age=0");
        fixture.client().get().uri("/queue/42/status").header("Queue-Token", token).exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.status").isEqualTo("NOT_FOUND");

        // Sent again (a reload of the answer): no place and no cookie now, and the same page.
        fixture.client().post().uri("/queue/42/leave").contentType(MediaType.APPLICATION_FORM_URLENCODED)
                .accept(MediaType.TEXT_HTML).body(BodyInserters.fromFormData("back", "//evil.example/"))
                .exchange()
                .expectStatus().isOk()
                .expectBody(String.class).value(page -> assertThat(page).contains("You have left the line")
                        .doesNotContain("evil.example"));
    }

    @Test
    void aClientThatIsNotABrowserGetsTheLeaveEndpointsAnswer() {
        join("holder");
        String token = join("shopper");
        form(token, "/api/products/42").exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.status").isEqualTo("LEFT").jsonPath("$.productId").isEqualTo("42");
    }

    private static WebTestClient.RequestHeadersSpec<?> form(String token, String back) {
        return fixture.client().post().uri("/queue/42/leave").cookie("queue_token", token)
                .contentType(MediaType.APPLICATION_FORM_URLENCODED).body(BodyInserters.fromFormData("back", back));
    }

    private static String join(String user) {
        return fixture.client().get().uri("/api/products/42").header("X-User-Id", user).exchange()
                .returnResult(String.class).getResponseHeaders().getFirst("Queue-Token");
    }
}
