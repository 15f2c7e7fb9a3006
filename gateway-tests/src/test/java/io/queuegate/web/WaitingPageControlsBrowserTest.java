package io.queuegate.web;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.queuegate.support.GatewayFixture;
import io.queuegate.support.HeadlessChromium;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.web.reactive.function.client.WebClient;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a shopper does on the waiting page, in a real headless Chromium: switches the language,
 * which sticks on every page after; leaves the line by keyboard alone with JavaScript off; sees
 * the progress bar move from the place they arrived at, in a new tab too; hears the place in
 * words at a calm pace while the figure moves at once; and without motion sees no spinner. The
 * proof-of-work page says what it does, shows how far it is, and only then says it is checking
 * the browser. Screenshots under {@code gateway-tests/target/screenshots/controls-*}. Skipped,
 * saying why, only where Chromium is absent.
 */
class WaitingPageControlsBrowserTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.shopQueue(1)
            .with("queuegate.products.42.display-name", "Limited sneakers")
            .with("queuegate.products.42.display-names.ko", "한정판 운동화")
            .withRoute("checked", Map.of("predicates[0]", "Path=/checked/{productId}",
                    // The products route's stored rules: two routes that can serve one product agree on them.
                    "metadata.queue.max-active", "1", "metadata.queue.join-challenge", "pow",
                    // A few seconds of work: long enough to see it move.
                    "metadata.queue.pow-difficulty", "3000000"));

    @RegisterExtension
    static final HeadlessChromium chromium = HeadlessChromium.window(1280, 900);

    @BeforeAll
    static void shop() {
        fixture.backend().stubFor(get(urlPathMatching("/(api/products|checked)/[a-z0-9]+")).willReturn(aResponse()
                .withStatus(200).withHeader("Content-Type", "text/html")
                .withBody("<html lang=\"en\"><body><h1 id=\"product\">Limited sneakers</h1></body></html>")));
        fixture.backend().stubFor(post(urlPathMatching("/api/products/[a-z0-9]+/orders")).willReturn(aResponse()
                .withStatus(201).withHeader("Content-Type", "application/json").withBody("{\"orderId\":1}")));
    }

    @Test
    void theLanguageChosenOnThePageSticksOnEveryPageAfter() {
        join("holder");
        ChromeDriver browser = chromium.open("en-US");
        browser.get(fixture.gateway().baseUrl() + "/api/products/42?size=9");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(10));
        wait.until(ExpectedConditions.textToBe(By.id("rank"), "1"));
        assertThat(browser.findElement(By.cssSelector("nav.languages")).getAccessibleName()).isEqualTo("Language");
        browser.findElement(By.linkText("한국어")).click();

        wait.until(ExpectedConditions.titleIs("한정판 운동화 구매 대기 중입니다"));
        assertThat(browser.getCurrentUrl()).endsWith("/api/products/42?size=9");
        assertThat(browser.findElement(By.tagName("html")).getAttribute("lang")).isEqualTo("ko");
        assertThat(browser.findElement(By.cssSelector("a[aria-current]")).getText()).isEqualTo("한국어");
        chromium.screenshotsAtWidths("controls-switched-ko");
        // An English browser still: the choice wins on every page, a notice's too.
        browser.navigate().refresh();
        wait.until(ExpectedConditions.titleIs("한정판 운동화 구매 대기 중입니다"));
        browser.get(fixture.gateway().baseUrl() + "/checked/7");
        assertThat(browser.findElement(By.tagName("html")).getAttribute("lang")).isEqualTo("ko");
        assertThat(browser.findElement(By.tagName("h1")).getText()).isEqualTo("대기열에 자리를 잡고 있습니다");
    }

    @Test
    void aShopperLeavesTheLineByKeyboardWithJavaScriptOff() {
        join("holder");
        join("ahead");
        // A line that admits one shopper every 100 s: the page without JavaScript reloads itself
        // every 20 s (a tenth of the wait, at most 20 s), long enough to act between two loads.
        long now = System.currentTimeMillis();
        fixture.redis().commands().hset("qg:{42}:settings", Map.of("rate", "0.01",
                "rate_at", Long.toString(now), "rate_since", Long.toString(now - 600_000)));
        fixture.gateway().forgetRedis();
        ChromeDriver browser = chromium.open("ko-KR");
        browser.executeCdpCommand("Emulation.setScriptExecutionDisabled", Map.of("value", true));
        browser.get(fixture.gateway().baseUrl() + "/api/products/42");
        assertThat(browser.findElement(By.id("rank")).getText()).isEqualTo("2");
        assertThat(browser.findElement(By.cssSelector("meta[http-equiv='refresh']")).getAttribute("content"))
                .isEqualTo("20");

        // Tab to "대기열에서 나가기", open it, Tab to the button, press it.
        tabTo(browser, "summary");
        new Actions(browser).sendKeys(Keys.ENTER).perform();
        assertThat(browser.findElement(By.cssSelector("#leave form")).isDisplayed()).isTrue();
        chromium.screenshotsAtWidths("controls-leave-ko");
        tabTo(browser, "button");
        new Actions(browser).sendKeys(Keys.ENTER).perform();

        new WebDriverWait(browser, Duration.ofSeconds(10)).until(ExpectedConditions.titleIs("대기열에서 나왔습니다"));
        assertThat(browser.findElement(By.tagName("main")).getText()).contains("한정판 운동화 대기열의 자리를 반납했습니다.");
        chromium.screenshotsAtWidths("controls-left-ko");
        assertThat(browser.manage().getCookieNamed("queue_token")).as("the place is given up").isNull();
        browser.findElement(By.linkText("다시 줄 서기 (맨 뒤부터)")).click();
        assertThat(browser.findElement(By.id("rank")).getText()).as("back in line, at the back").isEqualTo("2");
    }

    @Test
    void theProgressBarMovesFromThePlaceTheShopperArrivedAt() {
        String holder = join("holder");
        String first = join("first");
        join("second");
        ChromeDriver browser = chromium.open("en-US");
        browser.get(fixture.gateway().baseUrl() + "/api/products/42");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(10));
        wait.until(ExpectedConditions.textToBe(By.id("rank"), "3"));
        assertThat(browser.findElement(By.id("progress")).getAttribute("value")).isEqualTo("0");
        assertThat(browser.findElement(By.id("progress")).getAccessibleName()).isEqualTo("Progress through the line");

        order("holder", holder);
        wait.until(ExpectedConditions.textToBe(By.id("rank"), "2"));
        wait.until(ExpectedConditions.attributeToBe(By.id("progress"), "value", "50"));

        // A new tab, and one without JavaScript: the gateway remembers where the shopper arrived.
        browser.switchTo().newWindow(org.openqa.selenium.WindowType.TAB);
        browser.executeCdpCommand("Emulation.setScriptExecutionDisabled", Map.of("value", true));
        browser.get(fixture.gateway().baseUrl() + "/api/products/42");
        assertThat(browser.findElement(By.id("progress")).getAttribute("value")).isEqualTo("50");
        chromium.screenshotsAtWidths("controls-progress-en");
        order("first", first);
        browser.navigate().refresh();
        assertThat(browser.findElement(By.id("progress")).getAttribute("value")).isEqualTo("100");
    }

    @Test
    void thePlaceIsSaidInWordsAtACalmPaceWhileTheFigureMovesAtOnce() {
        List<String> tokens = new java.util.ArrayList<>();
        for (int i = 0; i < 8; i++) {
            tokens.add(join("ahead-" + i));
        }
        ChromeDriver browser = chromium.open("en-US");
        browser.get(fixture.gateway().baseUrl() + "/api/products/42");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(10));
        wait.until(ExpectedConditions.textToBe(By.id("rank"), "8"));
        assertThat(said(browser)).isEqualTo("You are number 8 in line.");
        assertThat(browser.findElement(By.id("rank")).getAttribute("aria-live")).isEqualTo("polite");

        // Steps forward are shown at once and not said: no news, and said less than 30 s ago.
        for (int i = 0; i < 3; i++) {
            order("ahead-" + i, tokens.get(i));
            wait.until(ExpectedConditions.textToBe(By.id("rank"), Integer.toString(7 - i)));
        }
        assertThat(said(browser)).isEqualTo("You are number 8 in line.");
        // Half the way: news, said at once in words, with the estimate.
        order("ahead-3", tokens.get(3));
        wait.until(ExpectedConditions.textToBe(By.id("rank"), "4"));
        wait.until(d -> said(browser).startsWith("You are number 4 in line. Estimated wait"));
        // Near the front, every step is news.
        order("ahead-4", tokens.get(4));
        wait.until(d -> said(browser).startsWith("You are number 3 in line."));
        order("ahead-5", tokens.get(5));
        wait.until(d -> said(browser).startsWith("You are number 2 in line."));
        order("ahead-6", tokens.get(6));
        wait.until(d -> said(browser).startsWith("You are next in line."));
        chromium.screenshotsAtWidths("controls-next-en");
    }

    @Test
    void aSlowStepIsSaidOnceThirtySecondsHavePassed() {
        List<String> tokens = new java.util.ArrayList<>();
        for (int i = 0; i < 12; i++) {
            tokens.add(join("ahead-" + i));
        }
        ChromeDriver browser = chromium.open("ko-KR");
        browser.get(fixture.gateway().baseUrl() + "/api/products/42");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(10));
        wait.until(ExpectedConditions.textToBe(By.id("rank"), "12"));
        order("ahead-0", tokens.get(0));
        wait.until(ExpectedConditions.textToBe(By.id("rank"), "11"));
        assertThat(said(browser)).isEqualTo("현재 대기 순번은 12번입니다.");
        Awaitility.await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(500))
                .until(() -> said(browser).startsWith("현재 대기 순번은 11번입니다."));
    }

    /**
     * Keeps, across the reload that follows the search, the progress the page showed while it ran
     * (the final 100 % aside) and the time it said was left.
     */
    private static final String RECORD_THE_PROGRESS = """
            document.addEventListener('DOMContentLoaded', function () {
              var bar = document.getElementById('work-done');
              if (!bar) { return; }
              new MutationObserver(function () {
                if (bar.value > 0 && bar.value < 100) {
                  sessionStorage.setItem('test.work-done', String(bar.value));
                  sessionStorage.setItem('test.time-left', document.getElementById('time-left').textContent);
                }
              }).observe(bar, { attributes: true });
            });
            """;

    @Test
    void theProofOfWorkPageSaysWhatItDoesAndHowFarItIs() {
        // The number is drawn anywhere in the range: below the first progress report (one in 46)
        // the search ends without one, so a second product is asked then.
        for (String product : List.of("5", "15", "16")) {
            if (showsProgress(product)) {
                return;
            }
        }
        throw new AssertionError("three searches in a row ended before their first progress report");
    }

    private boolean showsProgress(String product) {
        ChromeDriver browser = chromium.open("en-US");
        chromium.onEveryDocument(ChallengePageBrowserTest.HOLD_THE_WORKER);
        chromium.onEveryDocument(RECORD_THE_PROGRESS);
        browser.get(fixture.gateway().baseUrl() + "/checked/" + product);
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(60));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("checking")));
        assertThat(browser.findElement(By.tagName("h1")).getText()).isEqualTo("Getting you a place in line");
        assertThat(browser.findElement(By.id("why")).getText()).contains("It usually takes a few seconds");
        assertThat(browser.findElement(By.id("work-done")).getAccessibleName()).isEqualTo("Work done");
        chromium.screenshotsAtWidths("controls-challenge-checking-en");
        browser.executeScript("window.queuegateTestGo = true;");
        // The search may end between two polls: the page's own record, kept across the reload, is read after.
        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("product")));
        if (browser.executeScript("return sessionStorage.getItem('test.work-done')") == null) {
            return false;
        }
        assertThat(String.valueOf(browser.executeScript("return sessionStorage.getItem('test.time-left')")))
                .startsWith("At most about ");
        return true;
    }

    @Test
    void withoutMotionThereIsNoSpinner() {
        ChromeDriver browser = chromium.open("en-US");
        browser.executeCdpCommand("Emulation.setEmulatedMedia", Map.of("features",
                List.of(Map.of("name", "prefers-reduced-motion", "value", "reduce"))));
        chromium.onEveryDocument(ChallengePageBrowserTest.HOLD_THE_WORKER);
        browser.get(fixture.gateway().baseUrl() + "/checked/6");
        new WebDriverWait(browser, Duration.ofSeconds(10))
                .until(ExpectedConditions.visibilityOfElementLocated(By.id("checking")));
        assertThat(browser.findElement(By.cssSelector(".spinner")).isDisplayed()).isFalse();
        assertThat(browser.findElement(By.id("work")).isDisplayed()).as("the progress bar says it instead").isTrue();
    }

    private static String said(ChromeDriver browser) {
        return String.valueOf(browser.executeScript("return document.getElementById('rank-said').textContent"));
    }

    /** Presses Tab until the focus is on an element of this tag name. */
    private static void tabTo(ChromeDriver browser, String tag) {
        for (int i = 0; i < 20 && !browser.switchTo().activeElement().getTagName().equalsIgnoreCase(tag); i++) {
            new Actions(browser).sendKeys(Keys.TAB).perform();
        }
        assertThat(browser.switchTo().activeElement().getTagName()).isEqualToIgnoringCase(tag);
    }

    private static String join(String user) {
        return WebClient.create(fixture.gateway().baseUrl()).get().uri("/api/products/42").header("X-User-Id", user)
                .exchangeToMono(r -> r.releaseBody().thenReturn(r.headers().asHttpHeaders().getFirst("Queue-Token")))
                .block(Duration.ofSeconds(5));
    }

    private static void order(String user, String token) {
        WebClient.create(fixture.gateway().baseUrl()).post().uri("/api/products/42/orders")
                .header("X-User-Id", user).header("Queue-Token", token)
                .exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value()))
                .block(Duration.ofSeconds(5));
    }
}
