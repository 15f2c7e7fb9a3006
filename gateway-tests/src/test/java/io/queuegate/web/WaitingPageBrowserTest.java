package io.queuegate.web;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import io.queuegate.support.Draw;
import io.queuegate.support.GatewayFixture;
import io.queuegate.support.HeadlessChromium;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.web.reactive.function.client.WebClient;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The waiting page in a real headless Chromium (Debian's chromium and chromium-driver, which
 * {@code .ci/run} installs): a shopper opens a product while it is full, sees their place,
 * another shopper completes an order, and the page moves on to the product by itself. Screenshots
 * go to {@code gateway-tests/target/screenshots/}. Skipped, saying why, only where Chromium is absent.
 */
class WaitingPageBrowserTest {

    private ChromeDriver browser;

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.shopQueue(1)
            // A sale that does not open while this class runs: its page stays the pre-queue's.
            .with("queuegate.products.drop.opens-at", Instant.now().plus(Duration.ofHours(1)));

    @RegisterExtension
    static final HeadlessChromium chromium = HeadlessChromium.window(420, 860);

    @BeforeAll
    static void shop() {
        fixture.backend().stubFor(get(urlPathEqualTo("/api/products/42")).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "text/html")
                .withBody("<html><body><h1 id=\"product\">Limited sneakers</h1></body></html>")));
    }

    @Test
    void theWaitingPageMovesOnToTheProductByItselfWhenAPlaceFrees() {
        String holder = join("holder");
        browser = chromium.open();
        browser.get(fixture.gateway().baseUrl() + "/api/products/42");

        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(10));
        wait.until(ExpectedConditions.textToBe(By.id("rank"), "1"));
        assertThat(browser.getTitle()).isEqualTo("You are in line");
        assertThat(browser.findElement(By.id("rank")).getAttribute("aria-live")).isEqualTo("polite");
        assertThat(browser.findElement(By.tagName("main")).getText()).contains("Keep this tab open");
        chromium.screenshot("waiting-page-en.png");
        chromium.screenshotsAtWidths("waiting-page-en");

        WebClient.create(fixture.gateway().baseUrl()).post().uri("/api/products/42/orders")
                .header("X-User-Id", "holder").header("Queue-Token", holder)
                .retrieve().toBodilessEntity().block(Duration.ofSeconds(5));

        // No reload by hand and no meta refresh (JavaScript is on): the live update does it.
        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("product")));
        assertThat(browser.findElement(By.id("product")).getText()).isEqualTo("Limited sneakers");
        chromium.screenshot("admitted-product-page.png");
    }

    @Test
    void aPreQueuePageShowsTheDrawsCommitmentBehindHowIsThisFairAndAPlainLineShowsNone() {
        browser = chromium.open();
        browser.get(fixture.gateway().baseUrl() + "/api/products/drop");
        WebElement line = browser.findElement(By.id("draw"));
        assertThat(line.isDisplayed()).isTrue();
        assertThat(browser.findElement(By.id("commitment")).isDisplayed()).as("a shopper need not read a hash")
                .isFalse();
        browser.findElement(By.cssSelector("#draw summary")).click();
        assertThat(line.getText()).startsWith("How is this fair?\nPlaces are drawn at random, not by who clicked first.");
        String shown = browser.findElement(By.id("commitment")).getText();
        String seed = fixture.redis().commands().hget("qg:{drop}:settings", "seed");
        assertThat(shown).as("the SHA-256 of the seed kept secret in Redis").isEqualTo(Draw.commitment(seed));
        chromium.screenshot("pre-queue-commitment.png");

        join("holder");
        browser.get(fixture.gateway().baseUrl() + "/api/products/42");
        new WebDriverWait(browser, Duration.ofSeconds(10)).until(ExpectedConditions.textToBe(By.id("rank"), "1"));
        assertThat(browser.findElement(By.id("draw")).isDisplayed()).as("no draw, no line").isFalse();
    }

    @Test
    void thePreQueuePageCountsDownToTheOpeningInTheShoppersOwnTime() {
        browser = chromium.open();
        browser.executeCdpCommand("Emulation.setTimezoneOverride", Map.of("timezoneId", "Asia/Seoul"));
        browser.get(fixture.gateway().baseUrl() + "/api/products/drop");
        String first = browser.findElement(By.id("countdown")).getText();
        assertThat(first).as("an hour to go, give or take the test's own minutes").matches("(00|01):[0-5][0-9]:[0-5][0-9]");
        new WebDriverWait(browser, Duration.ofSeconds(5)).until(d -> !d.findElement(By.id("countdown")).getText().equals(first));
        assertThat(browser.findElement(By.id("opens-in")).getText()).isEqualTo("The sale opens in");
        assertThat(browser.findElement(By.id("opens-at")).getText()).as("in Seoul's time, which names its zone")
                .startsWith("Opens on ").contains("GMT+9").endsWith("(your time).");
        assertThat(browser.findElement(By.id("pre-queued")).getText()).isEqualTo("You are the first to wait for the opening.");
        String main = browser.findElement(By.tagName("main")).getText();
        assertThat(main.split("Keep this tab open", -1)).as("said once").hasSize(2);
        assertThat(main).contains("If you close it, come back within");
        chromium.screenshotsAtWidths("pre-queue-en");
        chromium.close();

        // Others join: the page says how many wait; without JavaScript, the gateway's UTC time stands.
        join("drop", "early-1");
        join("drop", "early-2");
        browser = chromium.open("ko-KR");
        browser.executeCdpCommand("Emulation.setScriptExecutionDisabled", Map.of("value", true));
        browser.get(fixture.gateway().baseUrl() + "/api/products/drop");
        assertThat(browser.findElement(By.id("countdown")).isDisplayed()).isFalse();
        assertThat(browser.findElement(By.id("opens-at")).getText()).startsWith("판매 시작: ").endsWith("(UTC)");
        assertThat(browser.findElement(By.id("pre-queued")).getText()).isEqualTo("판매 시작을 기다리는 분: 4명 (본인 포함)");
        chromium.close();

        browser = chromium.open("ko-KR");
        browser.get(fixture.gateway().baseUrl() + "/api/products/drop");
        assertThat(browser.findElement(By.id("countdown")).getText()).matches("(00|01):[0-5][0-9]:[0-5][0-9]");
        assertThat(browser.findElement(By.id("opens-at")).getText()).startsWith("판매 시작: ").endsWith("(현지 시각)");
        assertThat(browser.findElement(By.id("pre-queued")).getText()).isEqualTo("판매 시작을 기다리는 분: 5명 (본인 포함)");
        assertThat(browser.executeScript("return getComputedStyle(document.querySelector('main p')).wordBreak"))
                .as("Korean breaks between words, not inside them").isEqualTo("keep-all");
        chromium.screenshotsAtWidths("pre-queue-ko");
    }

    @Test
    void aKoreanBrowserGetsTheKoreanPage() {
        join("holder");
        join("someone");
        browser = chromium.open("ko-KR");
        browser.get(fixture.gateway().baseUrl() + "/api/products/42");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(10));
        wait.until(ExpectedConditions.textToBe(By.id("rank"), "2"));
        assertThat(browser.getTitle()).isEqualTo("대기 중입니다");
        assertThat(browser.findElement(By.tagName("html")).getAttribute("lang")).isEqualTo("ko");
        assertThat(browser.findElement(By.tagName("main")).getText()).contains("내 대기 순번");
        chromium.screenshot("waiting-page-ko.png");
        chromium.screenshotsAtWidths("waiting-page-ko");
    }

    private static String join(String user) {
        return join("42", user);
    }

    private static String join(String product, String user) {
        return WebClient.create(fixture.gateway().baseUrl()).get().uri("/api/products/" + product).header("X-User-Id", user)
                .exchangeToMono(r -> r.releaseBody().thenReturn(r.headers().asHttpHeaders().getFirst("Queue-Token")))
                .block(Duration.ofSeconds(5));
    }
}
