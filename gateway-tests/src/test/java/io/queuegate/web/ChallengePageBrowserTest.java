package io.queuegate.web;

import java.time.Duration;
import java.util.Map;

import io.queuegate.room.AdminAction;
import io.queuegate.store.QueueScripts;
import io.queuegate.support.GatewayFixture;
import io.queuegate.support.HeadlessChromium;
import io.queuegate.support.PowSolver;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.web.reactive.function.client.WebClient;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code join-challenge: pow} in a real headless Chromium: a shopper opens a product, the page
 * shows that it is checking the browser (screenshot {@code target/screenshots/challenge-checking.png}),
 * solves the proof of work in a Web Worker with nobody touching the page (the test holds the
 * worker back only until it has looked at the checking state), joins again with the solution, and reloads into the product (or the waiting page); from then on the token cookie
 * carries the shopper, who never pays again. Without JavaScript the page says the sale needs it.
 * Skipped, saying why, only where Chromium is absent.
 */
class ChallengePageBrowserTest {

    /** About two seconds here: a real search, with no one waiting long on it. */
    private static final int DIFFICULTY = 1_000_000;

    private ChromeDriver browser;

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of(
            "max-active", "1",
            "session-ttl", "10m",
            "join-challenge", "pow",
            "pow-difficulty", Integer.toString(DIFFICULTY)));

    @RegisterExtension
    static final HeadlessChromium chromium = HeadlessChromium.window(420, 860);

    @BeforeAll
    static void shop() {
        fixture.backend().stubFor(get(urlPathMatching("/api/products/[0-9]+")).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "text/html")
                .withBody("<html><body><h1 id=\"product\">Limited sneakers</h1></body></html>")));
    }

    @Test
    void thePageChecksTheBrowserByItselfAndMovesOnToTheProduct() {
        browser = chromium.open();
        // The worker's search starts only when the test has looked at the checking state: a secret
        // number near 0 would otherwise be found before anyone could look.
        chromium.onEveryDocument(HOLD_THE_WORKER);
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(60));
        String product = "/api/products/42";
        browser.get(fixture.gateway().baseUrl() + product);
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("checking")));
        assertThat(browser.getTitle()).isEqualTo("Checking your browser");
        assertThat(browser.findElement(By.id("checking")).getText())
                .contains("Checking your browser before you join the line");
        chromium.screenshot("challenge-checking.png");

        browser.executeScript("window.queuegateTestGo = true;");
        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("product")));
        assertThat(browser.findElement(By.id("product")).getText()).isEqualTo("Limited sneakers");
        chromium.screenshot("challenge-solved-product-page.png");
        long marks = fixture.redis().commands().keys("qg:{*}:pow:*").size();

        // The cookie carries the shopper now: the product again, with no second proof of work.
        browser.get(fixture.gateway().baseUrl() + product);
        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("product")));
        assertThat(browser.findElements(By.id("challenge"))).isEmpty();
        assertThat(fixture.redis().commands().keys("qg:{*}:pow:*")).hasSize((int) marks);
        Object solvedIn = browser.executeScript("return sessionStorage.getItem('queuegate.solved-ms')");
        assertThat(solvedIn).as("the page noted how long the solve took").isNotNull();
    }

    @Test
    void aShopperWhoMustWaitIsTakenToTheWaitingPageAfterTheCheck() {
        // Someone holds the one place: a JSON client that paid its own proof of work.
        String challenge = WebClient.create(fixture.gateway().baseUrl()).get().uri("/api/products/42")
                .header("X-User-Id", "holder")
                .exchangeToMono(r -> r.bodyToMono(String.class)).block(Duration.ofSeconds(10));
        WebClient.create(fixture.gateway().baseUrl()).get().uri("/api/products/42").header("X-User-Id", "holder")
                .header("Queue-Challenge", PowSolver.solveBody(challenge))
                .exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value()))
                .block(Duration.ofSeconds(10));

        browser = chromium.open();
        browser.get(fixture.gateway().baseUrl() + "/api/products/42");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(60));
        wait.until(ExpectedConditions.textToBe(By.id("rank"), "1"));
        assertThat(browser.getTitle()).isEqualTo("You are in line");
        chromium.screenshot("challenge-then-waiting-page.png");
    }

    @Test
    void withoutJavaScriptTheShopperIsToldThePageWaitsAndTakesTheirPlaceByItself() {
        browser = chromium.openWithoutJavaScript("ko-KR");
        browser.get(fixture.gateway().baseUrl() + "/api/products/42");

        WebElement main = browser.findElement(By.tagName("main"));
        assertThat(main.getText()).contains("JavaScript가 꺼져 있으면 잠시 기다린 뒤 줄에 서게 됩니다");
        assertThat(browser.getPageSource()).contains("http-equiv=\"refresh\"");
        assertThat(browser.findElement(By.id("checking")).isDisplayed()).isFalse();
        // Nothing is checked without JavaScript: the title says what the page is for, not "checking".
        assertThat(browser.getTitle()).isEqualTo("대기열에 자리를 잡고 있습니다");
        chromium.screenshot("challenge-noscript-ko.png");
        assertThat(fixture.redis().commands().keys("qg:{*}:pow:*")).isEmpty();
    }

    @Test
    void aRefusalAfterTheCheckShowsTheNoticeInTheShoppersLanguageNotTheApisEnglish() {
        for (String language : new String[] { "ko-KR", "en-US" }) {
            String product = language.startsWith("ko") ? "77" : "78";
            // The product exists in Redis, with someone in it: a JSON client that paid its own proof of work.
            String challenge = WebClient.create(fixture.gateway().baseUrl()).get().uri("/api/products/" + product)
                    .header("X-User-Id", "holder").exchangeToMono(r -> r.bodyToMono(String.class))
                    .block(Duration.ofSeconds(10));
            WebClient.create(fixture.gateway().baseUrl()).get().uri("/api/products/" + product).header("X-User-Id", "holder")
                    .header("Queue-Challenge", PowSolver.solveBody(challenge))
                    .exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value()))
                    .block(Duration.ofSeconds(10));

            browser = chromium.open(language);
            // The worker's search starts only when the test says so: the room closes in between.
            chromium.onEveryDocument(HOLD_THE_WORKER);
            chromium.watchPolicyViolations();
            browser.get(fixture.gateway().baseUrl() + "/api/products/" + product);
            WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(60));
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("checking")));
            QueueScripts scripts = fixture.gateway().bean(QueueScripts.class);
            scripts.admin().run(product, AdminAction.MODE, "closed", System.currentTimeMillis())
                    .block(Duration.ofSeconds(5));
            try {
                browser.executeScript("window.queuegateTestGo = true;");
                wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("message")));
                String text = browser.findElement(By.id("message")).getText();
                if (language.startsWith("ko")) {
                    assertThat(browser.getTitle()).isEqualTo("지금은 이용할 수 없습니다");
                    assertThat(browser.findElement(By.id("heading")).getText()).isEqualTo("지금은 이용할 수 없습니다");
                    assertThat(text).isEqualTo("이 상품은 지금 닫혀 있습니다. 나중에 다시 시도해 주세요.");
                    assertThat(browser.executeScript("return getComputedStyle(document.body).wordBreak"))
                            .as("Korean breaks between words").isEqualTo("keep-all");
                }
                else {
                    assertThat(browser.getTitle()).isEqualTo("Closed for now");
                    assertThat(text).isEqualTo("This product is closed for now. Please try again later.");
                }
                assertThat(text).as("not the JSON answer's English message")
                        .doesNotContain(QueueError.ROOM_CLOSED.message());
                assertThat(browser.findElement(By.id("checking")).isDisplayed()).isFalse();
                assertThat(browser.findElement(By.id("why")).isDisplayed()).isFalse();
                assertThat(chromium.policyViolations()).as("what the page's CSP blocked").isEmpty();
                chromium.screenshotsAtWidths("challenge-refused-" + language.substring(0, 2));
            }
            finally {
                scripts.admin().run(product, AdminAction.MODE, "queue", System.currentTimeMillis())
                        .block(Duration.ofSeconds(5));
                chromium.close();
            }
        }
    }

    /**
     * Holds a page's worker until {@code window.queuegateTestGo} is set: what happens between the
     * challenge and its solution is then up to the test, not to the secret number's luck.
     */
    static final String HOLD_THE_WORKER = """
            (function () {
              var Real = window.Worker;
              window.Worker = function (url, options) {
                var worker = new Real(url, options);
                var post = worker.postMessage.bind(worker);
                worker.postMessage = function (message) {
                  var wait = setInterval(function () {
                    if (window.queuegateTestGo) { clearInterval(wait); post(message); }
                  }, 50);
                };
                return worker;
              };
            })();
            """;

    /** The same as {@link HeadlessChromium#WATCH_POLICY_VIOLATIONS}, for tests that add it by hand. */
    static final String WATCH_POLICY_VIOLATIONS = HeadlessChromium.WATCH_POLICY_VIOLATIONS;
}
