package io.queuegate.app;

import java.time.Duration;
import java.util.Map;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.HeadlessChromium;
import io.queuegate.support.RedisProcess;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator console of the runnable gateway, behind the operator's login, in a real headless
 * Chromium: once the browser has the login (here given in the address, as a bookmark can hold it),
 * the page's own requests to the queues endpoint carry it, so the operator pauses a product from
 * the page and the audit log names them; a browser without it gets no console. Skipped, saying
 * why, where Chromium is absent.
 */
@ExtendWith(OutputCaptureExtension.class)
class OperatorConsoleBrowserTest {

    private static RedisProcess redis;
    private static WireMockServer shop;
    private static RunnableGateway gateway;

    @RegisterExtension
    static final HeadlessChromium chromium = HeadlessChromium.window(1280, 900);

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        shop = Backend.start();
        Map<String, Object> properties = RunnableGateway.properties(redis, shop.baseUrl());
        properties.put("queuegate.products.7.display-name", "Winter jacket");
        properties.put("queuegate.console.sample-interval", "1s");
        properties.put("logging.level.io.queuegate.audit", "INFO");
        gateway = RunnableGateway.start(properties);
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
            shop.stop();
            redis.close();
        }
    }

    @Test
    void anOperatorWithTheLoginPausesAProductFromTheConsole(CapturedOutput output) {
        ChromeDriver browser = chromium.open();
        browser.get("http://" + RunnableGateway.OPERATOR + ":" + RunnableGateway.OPERATOR_PASSWORD + "@localhost:"
                + gateway.managementPort() + "/actuator/queueconsole");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(15));
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("li[data-product='7']")));

        browser.findElement(By.cssSelector("li[data-product='7'] button[data-action='pause']")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("confirm")));
        browser.findElement(By.id("confirm-ok")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(
                By.cssSelector("li[data-product='7'] .badges"), "Paused"));

        assertThat(gateway.management("GET", "/actuator/queues/7").body()).contains("\"paused\":true");
        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(output.getOut())
                .contains("operator_action product=7 action=pause value= promoted=0 by=" + RunnableGateway.OPERATOR));
    }

    @Test
    void aBrowserWithoutTheLoginGetsNoConsole() {
        ChromeDriver browser = chromium.open();
        browser.get("http://localhost:" + gateway.managementPort() + "/actuator/queueconsole");

        assertThat(browser.getTitle()).isNotEqualTo("QueueGate console");
        assertThat(browser.findElements(By.cssSelector("li[data-product]"))).isEmpty();
    }
}
