package io.queuegate.console;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.queuegate.room.AdminAction;
import io.queuegate.store.QueueScripts;
import io.queuegate.support.GatewayFixture;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.HeadlessChromium;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator console in a real headless Chromium (Debian's chromium and chromium-driver, which
 * {@code .ci/run} installs): an operator watches a product's line move while shoppers join and
 * order in the background, pauses another product with a confirmation and sees the next shopper
 * queued, resumes it by keyboard alone and sees that shopper let in; sets a product's stock and
 * sells it out, which the console shows prominently; sees a mistyped stock as old -> new and puts
 * it right before anything is sent; where the queues endpoint is read-only the
 * console offers no action. Screenshots (desktop and 360 px wide) go to
 * {@code gateway-tests/target/screenshots/}. Skipped, saying why, only where Chromium is absent.
 */
class QueueConsoleBrowserTest {

    @RegisterExtension
    static final HeadlessChromium chromium = HeadlessChromium.window(1280, 900);

    // Two instances on one Redis: the operator's, and one whose queues endpoint is read-only.
    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.shopQueue(2)
            .with("management.server.port", "0")
            .with("management.endpoints.web.exposure.include", "health,queues,queueconsole")
            .with("queuegate.console.sample-interval", "1s")
            .with("queuegate.products.42.display-name", "Limited sneakers")
            .with("queuegate.products.7.display-name", "Winter jacket")
            .andInstance(Map.of("management.endpoint.queues.access", "read-only"));

    private static GatewayInstance gateway;
    private static GatewayInstance readOnly;
    private ChromeDriver browser;

    @BeforeAll
    static void instances() {
        gateway = fixture.gateway(0);
        readOnly = fixture.gateway(1);
    }

    @Test
    void anOperatorWatchesALineMoveAndPausesAndResumesAProductFromTheConsole() {
        Map<String, String> tokens = new ConcurrentHashMap<>();
        for (String user : List.of("h1", "h2", "w1", "w2", "w3")) {
            tokens.put(user, join(gateway, "42", user));
        }
        browser = chromium.open();
        browser.get(gateway.managementUrl() + "/actuator/queueconsole");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(15));
        wait.until(ExpectedConditions.textToBe(field("42", "waiting"), "3"));
        assertThat(text(field("42", "active"))).isEqualTo("2 / 2");
        assertThat(browser.findElement(By.cssSelector("li[data-product='42'] h2")).getText()).contains("Limited sneakers");
        assertThat(browser.findElement(By.id("filter")).getAccessibleName()).isEqualTo("Filter by product id or name");

        // Shoppers join and order in the background; the console follows by itself.
        tokens.put("w4", join(gateway, "42", "w4"));
        tokens.put("w5", join(gateway, "42", "w5"));
        wait.until(ExpectedConditions.textToBe(field("42", "waiting"), "5"));
        order(gateway, "42", "h1", tokens.get("h1"));
        order(gateway, "42", "h2", tokens.get("h2"));
        wait.until(ExpectedConditions.textToBe(field("42", "waiting"), "3"));
        chromium.screenshot("console-desktop.png");

        // Product 7 is configured, so the console lists it though nobody is in it yet.
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("li[data-product='7']")));
        WebElement pause = button("7", "pause");
        assertThat(pause.getAccessibleName()).isEqualTo("Pause Winter jacket");
        pause.click();
        WebElement dialog = browser.findElement(By.id("confirm"));
        wait.until(ExpectedConditions.visibilityOf(dialog));
        assertThat(browser.findElement(By.id("confirm-title")).getText()).isEqualTo("Pause Winter jacket?");
        assertThat(browser.switchTo().activeElement().getAttribute("id")).as("the safe choice has the focus")
                .isEqualTo("confirm-cancel");
        chromium.screenshot("console-confirm.png");
        browser.findElement(By.id("confirm-ok")).click();
        wait.until(ExpectedConditions.invisibilityOf(dialog));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(
                By.cssSelector("li[data-product='7'] .badges"), "Paused"));

        // A new shopper of the paused product is queued, though it has room.
        WebClient.ResponseSpec first = shopper(gateway, "7", "first", null);
        var answer = first.toEntity(String.class).block(Duration.ofSeconds(10));
        assertThat(answer.getStatusCode().value()).isEqualTo(429);
        assertThat(answer.getBody()).contains("\"status\":\"WAITING\"").contains("\"rank\":1");
        String firstToken = answer.getHeaders().getFirst("Queue-Token");

        // Resumed by keyboard alone: the button, Tab to Confirm, Enter.
        WebElement resume = button("7", "resume");
        resume.sendKeys(Keys.ENTER);
        wait.until(ExpectedConditions.visibilityOf(dialog));
        new Actions(browser).sendKeys(Keys.TAB).sendKeys(Keys.ENTER).perform();
        wait.until(ExpectedConditions.invisibilityOf(dialog));
        wait.until(driver -> button("7", "pause") != null);
        assertThat(shopper(gateway, "7", "first", firstToken).toBodilessEntity().block(Duration.ofSeconds(10))
                .getStatusCode().value()).as("admitted once resumed").isEqualTo(200);
        assertThat(browser.findElement(By.id("status")).getText()).contains("Resume");

        chromium.phoneViewport(360, 780);
        assertThat(((Number) browser.executeScript("return document.documentElement.scrollWidth")).intValue())
                .as("nothing wider than a 360 px screen").isLessThanOrEqualTo(360);
        chromium.screenshot("console-360px.png");
    }

    @Test
    void namesTheModeInWordsFlagsActiveOverCapacityWithTheReasonAndGivesTheChartItsAxes() {
        join(gateway, "42", "h1");
        join(gateway, "42", "h2");
        join(gateway, "42", "w1");
        QueueScripts scripts = gateway.bean(QueueScripts.class);
        scripts.admin().run("42", AdminAction.MAX, "1", System.currentTimeMillis()).block(Duration.ofSeconds(5));
        try {
            browser = chromium.open();
            browser.get(gateway.managementUrl() + "/actuator/queueconsole");
            WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(15));
            wait.until(ExpectedConditions.textToBe(field("42", "active"), "2 / 1"));
            assertThat(text(field("42", "mode"))).isEqualTo("Normal (admits in line order)");
            assertThat(browser.findElement(By.cssSelector("li[data-product='42'] .badges")).getText())
                    .contains("Over capacity");
            assertThat(text(field("42", "over"))).isEqualTo("More were in when an operator lowered max active to 1. "
                    + "They keep their sessions; nobody new is admitted until active falls below 1.");
            assertThat(browser.findElement(By.cssSelector("li[data-product='42'] [data-axis='y-top']")).getText())
                    .endsWith(" /min");
            assertThat(browser.findElement(By.cssSelector("li[data-product='42'] [data-axis='y-zero']")).getText())
                    .isEqualTo("0");
            assertThat(browser.findElement(By.cssSelector("li[data-product='42'] [data-axis='x-end']")).getText())
                    .matches("[0-2][0-9]:[0-5][0-9] UTC");
            assertThat(browser.findElement(By.cssSelector("li[data-product='42'] figcaption")).getText())
                    .contains("Admissions per minute (vertical)").contains("UTC (horizontal)");
            assertThat(browser.findElements(By.cssSelector("li[data-product='7'] dd[data-field='over']")))
                    .allSatisfy(row -> assertThat(row.isDisplayed()).as("within capacity, no flag").isFalse());
            chromium.screenshot("console-over-capacity-1280.png");

            scripts.admin().run("42", AdminAction.PAUSE, "", System.currentTimeMillis()).block(Duration.ofSeconds(5));
            wait.until(ExpectedConditions.textToBe(field("42", "mode"), "Paused (nobody new is admitted)"));
            chromium.phoneViewport(390, 844);
            chromium.screenshot("console-over-capacity-390.png");
        }
        finally {
            scripts.admin().run("42", AdminAction.RESUME, "", System.currentTimeMillis()).block(Duration.ofSeconds(5));
            scripts.admin().run("42", AdminAction.MAX, "", System.currentTimeMillis()).block(Duration.ofSeconds(5));
        }
    }

    @Test
    void anOperatorSetsAProductsStockAndSeesItSoldOut() {
        join(gateway, "42", "h1");
        join(gateway, "42", "h2");
        join(gateway, "42", "w1");
        browser = chromium.open();
        browser.get(gateway.managementUrl() + "/actuator/queueconsole");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(15));
        wait.until(ExpectedConditions.textToBe(field("42", "waiting"), "1"));
        assertThat(text(field("42", "stock"))).isEqualTo("Unknown (max active alone caps the sessions)");

        WebElement stock = button("42", "stock");
        assertThat(stock.getAccessibleName()).isEqualTo("Stock Limited sneakers");
        stock.click();
        WebElement dialog = browser.findElement(By.id("confirm"));
        wait.until(ExpectedConditions.visibilityOf(dialog));
        assertThat(browser.findElement(By.id("confirm-title")).getText()).isEqualTo("Set the stock of Limited sneakers");
        assertThat(browser.switchTo().activeElement().getAttribute("id")).isEqualTo("stock-input");
        assertThat(browser.findElement(By.id("stock-now")).getText()).isEqualTo("Now: unknown");
        browser.switchTo().activeElement().sendKeys("5");
        browser.findElement(By.id("confirm-ok")).click();
        // Nothing is sent before the operator has seen the change as old -> new and confirmed it.
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("confirm-change")));
        assertThat(browser.findElement(By.id("confirm-change")).getText())
                .isEqualTo("Stock of Limited sneakers: unknown \u2192 5. Change it?");
        browser.findElement(By.id("confirm-ok")).click();
        wait.until(ExpectedConditions.invisibilityOf(dialog));
        wait.until(ExpectedConditions.textToBe(field("42", "stock"),
                "5 left (1 per shopper, set by an operator or the settings)"));
        assertThat(browser.findElement(By.id("status")).getText()).contains("Set stock");

        // Sold out: a badge of its own and the stock in the stop colour.
        button("42", "stock").click();
        wait.until(ExpectedConditions.visibilityOf(dialog));
        // The stock as it is, beside the field rather than in it, where a typist's digits would join it.
        assertThat(browser.findElement(By.id("stock-now")).getText()).as("the stock as it is")
                .isEqualTo("Now: 5 left");
        assertThat(browser.findElement(By.id("stock-input")).getAttribute("value")).isEmpty();
        browser.findElement(By.id("stock-input")).clear();
        browser.findElement(By.id("stock-input")).sendKeys("0");
        browser.findElement(By.id("confirm-ok")).click();
        wait.until(ExpectedConditions.textToBe(By.id("confirm-change"), "Stock of Limited sneakers: 5 \u2192 0. Change it?"));
        browser.findElement(By.id("confirm-ok")).click();
        wait.until(ExpectedConditions.invisibilityOf(dialog));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(
                By.cssSelector("li[data-product='42'] .badges"), "Sold out"));
        assertThat(text(field("42", "stock"))).matches("Sold out since .* UTC \\(1 per shopper, set by an operator or the settings\\)");
        assertThat(browser.findElement(By.cssSelector("li[data-product='42'] .badge.sold")).getCssValue("color"))
                .matches("rgba?\\(255, 255, 255(, 1)?\\)");
        chromium.screenshot("console-sold-out-1280.png");
        chromium.phoneViewport(390, 844);
        assertThat(((Number) browser.executeScript("return document.documentElement.scrollWidth")).intValue())
                .as("nothing wider than a 390 px screen").isLessThanOrEqualTo(390);
        chromium.screenshot("console-sold-out-390.png");
    }

    @Test
    void aStockTypedWrongIsShownAsOldToNewAndSentOnlyOnceConfirmed() {
        QueueScripts scripts = gateway.bean(QueueScripts.class);
        join(gateway, "7", "h1");
        scripts.admin().run("7", AdminAction.STOCK, "30", System.currentTimeMillis()).block(Duration.ofSeconds(5));
        browser = chromium.open();
        browser.get(gateway.managementUrl() + "/actuator/queueconsole");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(15));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(field("7", "stock"), "30 left"));
        WebElement dialog = browser.findElement(By.id("confirm"));

        // The operator means 99 and types it into the field: nothing was there for the digits to join.
        button("7", "stock").click();
        wait.until(ExpectedConditions.visibilityOf(dialog));
        assertThat(browser.findElement(By.id("stock-now")).getText()).isEqualTo("Now: 30 left");
        new Actions(browser).sendKeys("99").perform();
        assertThat(browser.findElement(By.id("stock-input")).getAttribute("value")).isEqualTo("99");

        // A slip of the fingers, 9930, and Enter twice as a typist would: the first Enter shows the
        // change, the second lands on Back, which has the focus; nothing is sent.
        WebElement input = browser.findElement(By.id("stock-input"));
        input.clear();
        input.sendKeys("9930", Keys.ENTER);
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("confirm-change")));
        assertThat(browser.findElement(By.id("confirm-change")).getText())
                .isEqualTo("Stock of Winter jacket: 30 \u2192 9,930. Change it?");
        assertThat(browser.findElement(By.id("stock-field")).isDisplayed()).as("the field gives way to the change").isFalse();
        assertThat(browser.switchTo().activeElement().getAttribute("id")).as("the safe choice has the focus")
                .isEqualTo("confirm-cancel");
        assertThat(browser.findElement(By.id("confirm-cancel")).getText()).isEqualTo("Back");
        assertThat(browser.findElement(By.id("confirm-ok")).getText()).isEqualTo("Change it");
        chromium.screenshot("console-stock-confirm-1280.png");
        new Actions(browser).sendKeys(Keys.ENTER).perform();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("stock-input")));
        assertThat(stockLeft("7")).as("nothing sent before the confirmation").isEqualTo(30);
        assertThat(browser.findElement(By.id("stock-input")).getAttribute("value")).as("back with what was typed")
                .isEqualTo("9930");
        assertThat(browser.switchTo().activeElement().getAttribute("id")).isEqualTo("stock-input");
        chromium.screenshot("console-stock-edit-1280.png");

        // Put right and confirmed.
        input.clear();
        input.sendKeys("99", Keys.ENTER);
        wait.until(ExpectedConditions.textToBe(By.id("confirm-change"), "Stock of Winter jacket: 30 \u2192 99. Change it?"));
        browser.findElement(By.id("confirm-ok")).click();
        wait.until(ExpectedConditions.invisibilityOf(dialog));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(field("7", "stock"), "99 left"));
        assertThat(stockLeft("7")).isEqualTo(99);

        // An empty field is no answer: unknown is a choice of its own, and it is confirmed too.
        button("7", "stock").click();
        wait.until(ExpectedConditions.visibilityOf(dialog));
        browser.findElement(By.id("confirm-ok")).click();
        assertThat(browser.findElement(By.id("confirm-error")).getText())
                .isEqualTo("Type the units left, or choose Unknown.");
        assertThat(browser.findElement(By.id("confirm-change")).isDisplayed()).isFalse();
        browser.findElement(By.id("stock-unknown")).click();
        assertThat(browser.findElement(By.id("stock-input")).isEnabled()).isFalse();
        browser.findElement(By.id("confirm-ok")).click();
        wait.until(ExpectedConditions.textToBe(By.id("confirm-change"), "Stock of Winter jacket: 99 \u2192 unknown. Change it?"));
        browser.findElement(By.id("confirm-ok")).click();
        wait.until(ExpectedConditions.invisibilityOf(dialog));
        wait.until(ExpectedConditions.textToBe(field("7", "stock"), "Unknown (max active alone caps the sessions)"));

        // The phone's width: the field with the stock beside it, then the change to confirm.
        chromium.phoneViewport(390, 844);
        button("7", "stock").click();
        wait.until(ExpectedConditions.visibilityOf(dialog));
        browser.findElement(By.id("stock-input")).sendKeys("9930");
        chromium.screenshot("console-stock-edit-390.png");
        browser.findElement(By.id("confirm-ok")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("confirm-change")));
        assertThat(((Number) browser.executeScript("return document.documentElement.scrollWidth")).intValue())
                .as("nothing wider than a 390 px screen").isLessThanOrEqualTo(390);
        chromium.screenshot("console-stock-confirm-390.png");
        browser.findElement(By.id("confirm-cancel")).click();
        new Actions(browser).sendKeys(Keys.ESCAPE).perform();
        wait.until(ExpectedConditions.invisibilityOf(dialog));
        assertThat(stockLeft("7")).as("cancelled: still unknown").isNull();
    }

    /** What the queues endpoint says product {@code productId} has left; {@code null} while unknown. */
    private static Integer stockLeft(String productId) {
        Map<?, ?> queue = WebClient.create(gateway.managementUrl()).get().uri("/actuator/queues/" + productId)
                .retrieve().bodyToMono(Map.class).block(Duration.ofSeconds(10));
        return queue.get("stock") instanceof Map<?, ?> stock ? (Integer) stock.get("left") : null;
    }

    @Test
    void offersNoActionWhereTheQueuesEndpointIsReadOnly() {
        join(readOnly, "42", "h1");
        join(readOnly, "42", "h2");
        join(readOnly, "42", "w1");
        browser = chromium.open();
        browser.get(readOnly.managementUrl() + "/actuator/queueconsole");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(15));
        wait.until(ExpectedConditions.textToBe(field("42", "waiting"), "1"));

        assertThat(browser.findElements(By.cssSelector("li[data-product='42'] .actions button")))
                .allSatisfy(action -> assertThat(action.isDisplayed()).isFalse());
        assertThat(browser.findElement(By.id("summary")).getText()).contains("Read-only");
        int refused = WebClient.create(readOnly.managementUrl()).post().uri("/actuator/queues/42")
                .header("Content-Type", "application/json").bodyValue("{\"action\":\"pause\"}")
                .exchangeToMono(response -> response.releaseBody().thenReturn(response.statusCode().value()))
                .block(Duration.ofSeconds(10));
        assertThat(refused).isIn(404, 405);
        chromium.screenshot("console-read-only.png");
    }

    private By field(String productId, String name) {
        return By.cssSelector("li[data-product='" + productId + "'] dd[data-field='" + name + "']");
    }

    private String text(By locator) {
        try {
            return browser.findElement(locator).getText();
        }
        catch (org.openqa.selenium.WebDriverException gone) {
            return "";
        }
    }

    private WebElement button(String productId, String action) {
        List<WebElement> found = browser.findElements(
                By.cssSelector("li[data-product='" + productId + "'] button[data-action='" + action + "']"));
        return found.isEmpty() ? null : found.get(0);
    }

    private static String join(GatewayInstance to, String productId, String user) {
        String token = shopper(to, productId, user, null).toBodilessEntity()
                .mapNotNull(r -> r.getHeaders().getFirst("Queue-Token")).block(Duration.ofSeconds(10));
        return token == null ? "" : token;
    }

    private static WebClient.ResponseSpec shopper(GatewayInstance to, String productId, String user, String token) {
        WebClient.RequestHeadersSpec<?> request = WebClient.create(to.baseUrl()).get().uri("/api/products/" + productId)
                .header("X-User-Id", user).header("Accept", "application/json");
        if (token != null) {
            request = request.header("Queue-Token", token);
        }
        return request.retrieve().onStatus(status -> true, response -> reactor.core.publisher.Mono.empty());
    }

    private static void order(GatewayInstance to, String productId, String user, String token) {
        WebClient.create(to.baseUrl()).post().uri("/api/products/" + productId + "/orders")
                .header("X-User-Id", user).header("Queue-Token", token)
                .retrieve().toBodilessEntity().block(Duration.ofSeconds(10));
    }
}
