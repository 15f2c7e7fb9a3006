package io.queuegate.web;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import com.github.tomakehurst.wiremock.stubbing.StubMapping;
import io.queuegate.room.AdminAction;
import io.queuegate.store.QueueScripts;
import io.queuegate.support.GatewayFixture;
import io.queuegate.support.HeadlessChromium;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.web.reactive.function.client.WebClient;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every state of every page a shopper or an operator sees passes axe-core's WCAG 2.2 AA rules with
 * no violation, in English and Korean, as a phone (390 px) and a desktop (1280 px) show it: the
 * browser check before a place, the waiting page with a place and an estimate, the hand-off when
 * it is the shopper's turn, sold out (in place and as the gateway's page), the pre-queue of a sale
 * not yet open, the page that says the shopper left, the page shown while Redis cannot answer, and
 * the operator console. Each state is reached as a shopper reaches it, through a real gateway on a
 * real Redis. Screenshots {@code a11y-<state>-<language>-<width>.png} under
 * {@code gateway-tests/target/screenshots/}. Skipped, saying why, only where Chromium is absent.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PageAccessibilityBrowserTest {

    private static final List<String> LANGUAGES = List.of("en-US", "ko-KR");

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.shopQueue(1)
            .with("management.server.port", "0")
            .with("management.endpoints.web.exposure.include", "health,queues,queueconsole")
            .with("queuegate.products.42.display-name", "Limited sneakers")
            // A sale that does not open while this class runs: its page stays the pre-queue's.
            .with("queuegate.products.drop.opens-at", Instant.now().plus(Duration.ofHours(1)))
            .with("queuegate.products.drop.display-name", "Winter drop")
            // The browser check: the page's worker is held back, so it stays in view.
            .withRoute("checked", Map.of("predicates[0]", "Path=/checked/{productId}",
                    // The products route's stored rules: two routes that can serve one product agree on them.
                    "metadata.queue.max-active", "1", "metadata.queue.join-challenge", "pow"));

    @RegisterExtension
    static final HeadlessChromium chromium = HeadlessChromium.window(1280, 900);

    @BeforeAll
    static void shop() {
        fixture.backend().stubFor(get(urlPathMatching("/(api/products|checked)/[a-z0-9]+")).willReturn(aResponse()
                .withStatus(200).withHeader("Content-Type", "text/html")
                .withBody("<html lang=\"en\"><head><title>Shop</title></head><body><main><h1 id=\"product\">"
                        + "Limited sneakers</h1></main></body></html>")));
        fixture.backend().stubFor(post(urlPathMatching("/api/products/[a-z0-9]+/orders")).willReturn(aResponse()
                .withStatus(201).withHeader("Content-Type", "application/json").withBody("{\"orderId\":1}")));
    }

    @Test
    void theBrowserCheck() {
        for (String language : LANGUAGES) {
            ChromeDriver browser = chromium.open(language);
            chromium.onEveryDocument(ChallengePageBrowserTest.HOLD_THE_WORKER);
            browser.get(fixture.gateway().baseUrl() + "/checked/5");
            new WebDriverWait(browser, Duration.ofSeconds(10))
                    .until(ExpectedConditions.visibilityOfElementLocated(By.id("checking")));
            chromium.assertAccessibleAtWidths("a11y-challenge-" + tag(language));
            chromium.close();
        }
    }

    @Test
    void theWaitingPageWithAPlaceAndAnEstimate() {
        join("42", "holder");
        join("42", "w1");
        // A line that has admitted at its pace for two minutes: the page shows an estimate.
        paceOf("42");
        for (String language : LANGUAGES) {
            ChromeDriver browser = chromium.open(language);
            browser.get(fixture.gateway().baseUrl() + "/api/products/42");
            new WebDriverWait(browser, Duration.ofSeconds(10)).until(d -> !d.findElement(By.id("rank")).getText()
                    .isEmpty());
            assertThat(browser.findElement(By.id("eta")).getText()).containsPattern("[0-9]");
            chromium.assertAccessibleAtWidths("a11y-waiting-" + tag(language));
            chromium.close();
        }
    }

    @Test
    void theHandOffWhenItIsTheShoppersTurn() {
        // The shop answers the page's move to it with 204 No Content, on which a browser stays
        // where it is: the hand-off stays in view.
        StubMapping stay = fixture.backend().stubFor(get(urlPathEqualTo("/api/products/42"))
                .willReturn(aResponse().withStatus(204)));
        try {
            for (String language : LANGUAGES) {
                fixture.redis().flushAll();
                fixture.gateway().forgetRedis();
                String holder = join("42", "holder");
                ChromeDriver browser = chromium.open(language);
                browser.get(fixture.gateway().baseUrl() + "/api/products/42");
                WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(10));
                wait.until(ExpectedConditions.textToBe(By.id("rank"), "1"));
                fixture.backend().resetRequests();
                order("42", "holder", holder);
                wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("message")));
                fixture.backend().verify(1, getRequestedFor(urlPathEqualTo("/api/products/42")));
                chromium.assertAccessibleAtWidths("a11y-hand-off-" + tag(language));
                chromium.close();
            }
        }
        finally {
            fixture.backend().removeStub(stay);
        }
    }

    @Test
    void soldOutInPlaceAndAsTheGatewaysPage() {
        for (String language : LANGUAGES) {
            fixture.redis().flushAll();
            fixture.gateway().forgetRedis();
            join("42", "holder");
            ChromeDriver browser = chromium.open(language);
            browser.get(fixture.gateway().baseUrl() + "/api/products/42");
            WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(10));
            wait.until(ExpectedConditions.textToBe(By.id("rank"), "1"));
            admin("42", AdminAction.STOCK, "0");
            wait.until(ExpectedConditions.attributeToBe(By.id("line"), "hidden", "true"));
            chromium.assertAccessibleAtWidths("a11y-sold-out-in-place-" + tag(language));

            browser.get(fixture.gateway().baseUrl() + "/api/products/42");
            assertThat(browser.findElements(By.id("queue"))).as("the notice page, not the waiting page").isEmpty();
            chromium.assertAccessibleAtWidths("a11y-sold-out-" + tag(language));
            chromium.close();
        }
    }

    @Test
    void thePreQueueOfASaleNotYetOpen() {
        for (String language : LANGUAGES) {
            ChromeDriver browser = chromium.open(language);
            browser.get(fixture.gateway().baseUrl() + "/api/products/drop");
            new WebDriverWait(browser, Duration.ofSeconds(10))
                    .until(ExpectedConditions.visibilityOfElementLocated(By.id("countdown")));
            chromium.assertAccessibleAtWidths("a11y-pre-queue-" + tag(language));
            chromium.close();
        }
    }

    @Test
    void theOperatorConsole() {
        join("42", "holder");
        join("42", "w1");
        for (String language : LANGUAGES) {
            ChromeDriver browser = chromium.open(language);
            browser.get(fixture.gateway().managementUrl() + "/actuator/queueconsole");
            new WebDriverWait(browser, Duration.ofSeconds(15))
                    .until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("li[data-product='42']")));
            chromium.assertAccessibleAtWidths("a11y-console-" + tag(language));
            chromium.close();
        }
    }

    @Test
    void thePageAfterLeavingTheLine() {
        join("42", "holder");
        for (String language : LANGUAGES) {
            ChromeDriver browser = chromium.open(language);
            browser.get(fixture.gateway().baseUrl() + "/api/products/42");
            WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(10));
            wait.until(d -> !d.findElement(By.id("rank")).getText().isEmpty());
            browser.findElement(By.cssSelector("#leave summary")).click();
            chromium.assertAccessibleAtWidths("a11y-leave-open-" + tag(language));
            browser.findElement(By.cssSelector("#leave button")).click();
            wait.until(ExpectedConditions.presenceOfElementLocated(By.id("again")));
            chromium.assertAccessibleAtWidths("a11y-left-" + tag(language));
            chromium.close();
        }
    }

    /** Last: Redis stops, and starts again (empty). */
    @Test
    @Order(Integer.MAX_VALUE)
    void whileRedisCannotAnswer() {
        try {
            fixture.redis().stop();
            for (String language : LANGUAGES) {
                ChromeDriver browser = chromium.open(language);
                browser.get(fixture.gateway().baseUrl() + "/api/products/42");
                assertThat(browser.findElement(By.tagName("h1")).getText()).isNotBlank();
                chromium.assertAccessibleAtWidths("a11y-unavailable-" + tag(language));
                chromium.close();
            }
        }
        finally {
            fixture.redis().restart();
        }
    }

    /** As if the line had admitted one shopper every 20 s for two minutes. */
    private static void paceOf(String product) {
        long now = System.currentTimeMillis();
        fixture.redis().commands().hset("qg:{" + product + "}:settings", Map.of("rate", "0.05",
                "rate_at", Long.toString(now), "rate_since", Long.toString(now - 120_000)));
        fixture.gateway().forgetRedis();
    }

    private static void admin(String product, AdminAction action, String value) {
        fixture.gateway().bean(QueueScripts.class).admin().run(product, action, value, System.currentTimeMillis())
                .block(Duration.ofSeconds(5));
    }

    /** The language's two letters, for the screenshots' names. */
    private static String tag(String language) {
        return language.substring(0, 2);
    }

    static String join(String product, String user) {
        return WebClient.create(fixture.gateway().baseUrl()).get().uri("/api/products/" + product)
                .header("X-User-Id", user)
                .exchangeToMono(r -> r.releaseBody().thenReturn(r.headers().asHttpHeaders().getFirst("Queue-Token")))
                .block(Duration.ofSeconds(5));
    }

    private static void order(String product, String user, String token) {
        WebClient.create(fixture.gateway().baseUrl()).post().uri("/api/products/" + product + "/orders")
                .header("X-User-Id", user).header("Queue-Token", token)
                .exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value()))
                .block(Duration.ofSeconds(5));
    }
}
