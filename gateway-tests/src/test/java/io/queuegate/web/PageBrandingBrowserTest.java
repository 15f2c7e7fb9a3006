package io.queuegate.web;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import io.queuegate.room.AdminAction;
import io.queuegate.store.QueueScripts;
import io.queuegate.support.GatewayFixture;
import io.queuegate.support.HeadlessChromium;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.http.HttpHeaders;
import org.springframework.web.reactive.function.client.WebClient;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A shop's name, logo, colours and line of text ({@code queuegate.page.*}) on the waiting page,
 * the pre-queue page and a notice page, in a real headless Chromium: a name with a script in it
 * is shown as text, the logo loads from the gateway's origin under the pages' own
 * Content-Security-Policy, and nothing on the pages is blocked by that policy. Screenshots at 390
 * and 1280 px, in English and Korean, under {@code gateway-tests/target/screenshots/branded-*}. Skipped,
 * saying why, only where Chromium is absent.
 */
class PageBrandingBrowserTest {

    private static final String SHOP_NAME = "Kicks <script>window.pwned = 1</script> Seoul";
    private static final String LOGO = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"96\" height=\"48\">"
            + "<rect width=\"96\" height=\"48\" rx=\"8\" fill=\"#0f766e\"/><text x=\"48\" y=\"31\" font-size=\"18\" "
            + "font-family=\"sans-serif\" fill=\"#fff\" text-anchor=\"middle\">KICKS</text></svg>";

    private ChromeDriver browser;

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1", "session-ttl", "10m"))
            .withOpenRoute("static", "/static/**")
            .with("queuegate.products.drop.opens-at", Instant.now().plus(Duration.ofHours(26)))
            .with("queuegate.products.drop.display-name", "Air Runner 95")
            .with("queuegate.products.42.display-name", "Air Runner 95")
            .with("queuegate.page.shop-name", SHOP_NAME)
            .with("queuegate.page.logo-url", "/static/logo.svg")
            .with("queuegate.page.primary-color", "#0f766e")
            .with("queuegate.page.accent-color", "#c2410c")
            .with("queuegate.page.tagline", "Drops every Friday at 10:00 KST")
            // The shop's own words first, QueueGate's for everything they leave out.
            .with("queuegate.page.messages", "branding/shop-messages,queuegate/messages");

    @RegisterExtension
    static final HeadlessChromium chromium = HeadlessChromium.window(390, 860);

    @BeforeAll
    static void logo() {
        fixture.backend().stubFor(get(urlPathEqualTo("/static/logo.svg")).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "image/svg+xml").withBody(LOGO)));
    }

    @Test
    void theWaitingPageCarriesTheShopsBrandingAsTextUnderItsOwnPolicy() {
        join("42", "holder");
        for (String language : new String[] { "en-US", "ko-KR" }) {
            open(language, "/api/products/42");
            // Each browser is a shopper of its own: the Korean one stands behind the English one.
            String rank = language.startsWith("ko") ? "2" : "1";
            new WebDriverWait(browser, Duration.ofSeconds(10)).until(ExpectedConditions.textToBe(By.id("rank"), rank));
            assertBranded();
            assertThat(browser.findElement(By.tagName("h1")).getCssValue("color")).as("the primary colour")
                    .matches("rgba?\\(15, 118, 110(, 1)?\\)");
            assertThat(browser.findElement(By.id("progress")).getCssValue("accent-color")).as("the accent colour")
                    .matches("rgba?\\(194, 65, 12(, 1)?\\)");
            chromium.screenshotsAtWidths("branded-waiting-" + language.substring(0, 2));
            chromium.close();
        }
    }

    @Test
    void thePreQueuePageCarriesItToo() {
        for (String language : new String[] { "en-US", "ko-KR" }) {
            open(language, "/api/products/drop");
            assertThat(browser.findElement(By.id("countdown")).getText()).as("more than a day to go")
                    .matches(language.startsWith("ko") ? "1일 [0-9]{2}:[0-9]{2}:[0-9]{2}" : "1 d [0-9]{2}:[0-9]{2}:[0-9]{2}");
            assertBranded();
            chromium.screenshotsAtWidths("branded-pre-queue-" + language.substring(0, 2));
            chromium.close();
        }
    }

    @Test
    void aNoticePageCarriesItToo() {
        join("43", "holder");
        QueueScripts scripts = fixture.gateway().bean(QueueScripts.class);
        scripts.admin().run("43", AdminAction.MODE, "closed", System.currentTimeMillis()).block(Duration.ofSeconds(5));
        try {
            for (String language : new String[] { "en-US", "ko-KR" }) {
                open(language, "/api/products/43");
                assertThat(browser.getTitle()).isEqualTo(language.startsWith("ko") ? "지금은 이용할 수 없습니다" : "Closed for now");
                assertBranded();
                chromium.screenshotsAtWidths("branded-notice-" + language.substring(0, 2));
                chromium.close();
            }
        }
        finally {
            scripts.admin().run("43", AdminAction.MODE, "queue", System.currentTimeMillis()).block(Duration.ofSeconds(5));
        }
    }

    /**
     * A message the page shows by itself (here: the place has lapsed, heard live) is the shop's
     * text as written, an ampersand and angle brackets included: not their markup, and not markup.
     */
    @Test
    void theShopsOwnWordsAreShownAsWrittenWhenThePlaceLapses() {
        join("44", "holder");
        Map<String, String> expected = Map.of(
                "en-US", "Your place at Kicks & Co. has lapsed. Reload this page <now> to join the line again.",
                "ko-KR", "Kicks & Co. 대기 순서가 만료되었습니다. <지금> 이 페이지를 새로 고침하세요.");
        for (String language : new String[] { "en-US", "ko-KR" }) {
            open(language, "/api/products/44");
            new WebDriverWait(browser, Duration.ofSeconds(10)).until(ExpectedConditions.textToBe(By.id("rank"), "1"));
            // The shopper gives up their place from another tab: this page hears it live.
            Object status = browser.executeAsyncScript("var done = arguments[arguments.length - 1];"
                    + "fetch('/queue/44', { method: 'DELETE' }).then(function (r) { done(r.status); });");
            assertThat(((Number) status).intValue()).isEqualTo(200);
            WebElement message = new WebDriverWait(browser, Duration.ofSeconds(10))
                    .until(ExpectedConditions.visibilityOfElementLocated(By.id("message")));
            assertThat(message.getText()).isEqualTo(expected.get(language));
            assertThat(browser.findElements(By.cssSelector("#message *"))).as("text, not markup").isEmpty();
            assertThat(browser.getTitle()).isEqualTo(language.startsWith("ko") ? "대기 순번이 만료되었습니다"
                    : "Your place has lapsed");
            assertThat(browser.findElement(By.id("heading")).getText()).isEqualTo(browser.getTitle());
            for (String stale : new String[] { "intro", "line", "keep-open" }) {
                assertThat(browser.findElement(By.id(stale)).isDisplayed()).as("a lapsed place's %s", stale).isFalse();
            }
            assertThat(chromium.policyViolations()).isEmpty();
            chromium.screenshotsAtWidths("shop-words-lapsed-" + language.substring(0, 2));
            chromium.close();
        }
    }

    @Test
    void thePagesPolicyAllowsTheirOwnScriptsAndStylesAndImagesFromTheGatewayOnly() {
        join("42", "holder");
        HttpHeaders headers = WebClient.create(fixture.gateway().baseUrl()).get().uri("/api/products/42")
                .header("X-User-Id", "someone").header("Accept", "text/html")
                .exchangeToMono(r -> r.releaseBody().thenReturn(r.headers().asHttpHeaders()))
                .block(Duration.ofSeconds(5));
        String policy = headers.getFirst("Content-Security-Policy");
        assertThat(policy).startsWith("default-src 'none'; script-src 'self' 'sha256-")
                .contains("; img-src 'self'; ").contains("; connect-src 'self'; ").doesNotContain("unsafe");
    }

    private void open(String language, String path) {
        browser = chromium.open(language);
        chromium.watchPolicyViolations();
        browser.get(fixture.gateway().baseUrl() + path);
    }

    private void assertBranded() {
        assertThat(browser.findElement(By.id("shop-name")).getText()).as("the name as written, a script and all")
                .isEqualTo(SHOP_NAME);
        assertThat(browser.executeScript("return window.pwned === undefined")).as("its script never ran").isEqualTo(true);
        assertThat(browser.getPageSource()).contains("Kicks &lt;script&gt;window.pwned = 1&lt;/script&gt; Seoul");
        assertThat(browser.findElement(By.id("tagline")).getText()).isEqualTo("Drops every Friday at 10:00 KST");
        new WebDriverWait(browser, Duration.ofSeconds(5)).until(d -> Boolean.TRUE.equals(browser.executeScript(
                "var logo = document.querySelector('.logo'); return logo.complete && logo.naturalWidth > 0")));
        assertThat(chromium.policyViolations()).as("what the page's policy blocked").isEmpty();
    }

    private static void join(String product, String user) {
        WebClient.create(fixture.gateway().baseUrl()).get().uri("/api/products/" + product).header("X-User-Id", user)
                .exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value())).block(Duration.ofSeconds(5));
    }
}
