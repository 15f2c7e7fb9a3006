package io.queuegate.web;

import java.net.URI;
import java.util.List;
import java.util.Map;

import io.queuegate.support.GatewayFixture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The language of the shopper pages, through a running gateway: the switch's link keeps the
 * shopper's choice in a cookie and goes back to the page it came from (never to another site),
 * the choice wins over {@code Accept-Language} on every page, and each page names the product in
 * its language ({@code display-names} on the route and per product) or by its display-name.
 */
class PageLanguageTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of(
            "max-active", "1",
            "display-name", "Limited sneakers",
            "display-names.ko", "한정판 운동화"))
            // Renamed alone: the route's Korean name does not stand for it.
            .with("queuegate.products.77.display-name", "Winter jacket")
            .with("queuegate.products.78.display-name", "Winter jacket")
            .with("queuegate.products.78.display-names.ko", "겨울 재킷");

    @Test
    void theSwitchKeepsTheChoiceInACookieAndGoesBackToThePage() {
        EntityExchangeResult<byte[]> answer = fixture.client().get()
                .uri(raw("/queue/language/ko?back=/api/products/42%3Fsize%3D9")).exchange()
                .expectStatus().isEqualTo(HttpStatus.SEE_OTHER)
                .expectHeader().valueEquals(HttpHeaders.LOCATION, "/api/products/42?size=9")
                .expectBody().returnResult();
        String cookie = answer.getResponseHeaders().getFirst(HttpHeaders.SET_COOKIE);
        assertThat(cookie).startsWith("queue_lang=ko;").contains("; Max-Age=31536000;").contains("; Path=/;")
                .contains("SameSite=Lax").doesNotContainIgnoringCase("HttpOnly");
    }

    /** The attacker's links: whatever {@code back} says, the browser stays on the gateway's origin. */
    @ParameterizedTest
    @ValueSource(strings = { "//evil.example/", "https://evil.example/", "/%5Cevil.example", "%2F%2Fevil.example",
            "/x%0d%0aSet-Cookie:%20queue_token=forged", "javascript:alert(1)" })
    void theSwitchNeverSendsAShopperToAnotherSite(String back) {
        fixture.client().get().uri(raw("/queue/language/ko?back=" + back)).exchange()
                .expectStatus().isEqualTo(HttpStatus.SEE_OTHER)
                .expectHeader().valueEquals(HttpHeaders.LOCATION, "/")
                .expectHeader().values(HttpHeaders.SET_COOKIE, cookies -> assertThat(cookies)
                        .allSatisfy(cookie -> assertThat(cookie).startsWith("queue_lang=ko;")));
    }

    @Test
    void aLanguageNotOnOfferSetsNothing() {
        fixture.client().get().uri(raw("/queue/language/fr?back=/api/products/42")).exchange()
                .expectStatus().isEqualTo(HttpStatus.SEE_OTHER)
                .expectHeader().valueEquals(HttpHeaders.LOCATION, "/api/products/42")
                .expectHeader().doesNotExist(HttpHeaders.SET_COOKIE);
    }

    @Test
    void theChoiceWinsOverTheBrowsersLanguageOnEveryPage() {
        join("42", "holder");
        String korean = page("42", "shopper", "en-US,en;q=0.9", "ko");
        assertThat(korean).contains("<html lang=\"ko\">").contains("<title>한정판 운동화 구매 대기 중입니다</title>")
                .contains("aria-current=\"true\">한국어</a>");
        String english = page("42", "other", "ko-KR", "en");
        assertThat(english).contains("<html lang=\"en\">").contains("<title>You are in line for Limited sneakers</title>");
        assertThat(page("42", "third", "ko-KR", "fr")).as("a choice not on offer: the browser's")
                .contains("<html lang=\"ko\">");

        // A notice page too: the room is closed to new shoppers for now.
        fixture.gateway().bean(io.queuegate.store.QueueScripts.class).admin()
                .run("42", io.queuegate.room.AdminAction.MODE, "closed", System.currentTimeMillis())
                .block(java.time.Duration.ofSeconds(5));
        String notice = fixture.client().get().uri("/api/products/42").header("X-User-Id", "late")
                .accept(MediaType.TEXT_HTML).header("Accept-Language", "en").cookie(PageLanguages.COOKIE, "ko")
                .exchange().expectStatus().isEqualTo(HttpStatus.SERVICE_UNAVAILABLE)
                .expectBody(String.class).returnResult().getResponseBody();
        assertThat(notice).contains("<title>지금은 이용할 수 없습니다</title>")
                .contains("href=\"/queue/language/en?back=%2Fapi%2Fproducts%2F42\"");
    }

    @Test
    void eachPageNamesTheProductInItsLanguage() {
        for (String product : List.of("42", "77", "78")) {
            join(product, "holder");
        }
        assertThat(page("42", "a", "ko", null)).contains("한정판 운동화 상품에 구매자가 몰려");
        assertThat(page("42", "b", "en", null)).contains("There is high demand for Limited sneakers");
        assertThat(page("77", "a", "ko", null)).as("renamed alone: its own name, not the route's Korean one")
                .contains("Winter jacket 상품에 구매자가 몰려").doesNotContain("한정판 운동화");
        assertThat(page("78", "a", "ko", null)).contains("겨울 재킷 상품에 구매자가 몰려");
        assertThat(page("78", "b", "en", null)).contains("There is high demand for Winter jacket");
    }

    /** The address as written, not encoded again. */
    private static URI raw(String pathAndQuery) {
        return URI.create(fixture.gateway().baseUrl() + pathAndQuery);
    }

    private static void join(String productId, String user) {
        fixture.client().get().uri("/api/products/" + productId).header("X-User-Id", user).exchange()
                .expectStatus().isOk();
    }

    private static String page(String productId, String user, String acceptLanguage, String chosen) {
        return fixture.client().get().uri("/api/products/" + productId).header("X-User-Id", user)
                .accept(MediaType.TEXT_HTML).header("Accept-Language", acceptLanguage)
                .cookies(cookies -> {
                    if (chosen != null) {
                        cookies.add(PageLanguages.COOKIE, chosen);
                    }
                })
                .exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectBody(String.class).returnResult().getResponseBody();
    }
}
