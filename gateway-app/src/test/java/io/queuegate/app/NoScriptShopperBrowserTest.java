package io.queuegate.app;

import java.net.http.HttpResponse;
import java.time.Duration;

import io.queuegate.support.HeadlessChromium;
import io.queuegate.support.PowSolver;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.chrome.ChromeDriver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A shopper with JavaScript turned off, in a real headless Chromium, on the runnable gateway's own
 * defaults (an anonymous shopper pays for a place: the proof of work, or without JavaScript a wait the
 * gateway signs): the page says what it is waiting for and refreshes itself, the shopper joins the line
 * behind the one who holds the product's one place, waits on the page that refreshes itself, and is let
 * through to the shop when that place frees. Skipped, saying why, only where Chromium is absent.
 */
class NoScriptShopperBrowserTest {

    @RegisterExtension
    static final RunnableGatewayFixture fixture = RunnableGatewayFixture.create();

    @RegisterExtension
    static final HeadlessChromium chromium = HeadlessChromium.window(1280, 900);

    @Test
    void aShopperWithoutJavaScriptJoinsWaitsAndIsAdmittedOnTheDefaults() {
        int port = fixture.gateway().port();
        String holder = admittedWithAProofOfWork(port);

        ChromeDriver browser = chromium.openWithoutJavaScript("en-US");
        browser.get("http://127.0.0.1:" + port + "/api/products/42");
        assertThat(browser.getPageSource()).contains("Without JavaScript you join the line after a short wait",
                "http-equiv=\"refresh\"");
        chromium.screenshotsAtWidths("no-script-wait-en");

        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> browser.getPageSource().contains("id=\"rank\""));
        chromium.screenshotsAtWidths("no-script-waiting-en");

        HttpResponse<String> order = RunnableGateway.send(port, "POST", "/api/products/42/orders",
                "Queue-Token", holder);
        assertThat(order.statusCode()).isEqualTo(201);
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> browser.getPageSource().contains("\"product\":\"ok\""));
    }

    /** A JSON client that pays the proof of work takes the product's one place. */
    private static String admittedWithAProofOfWork(int port) {
        HttpResponse<String> challenged = RunnableGateway.send(port, "GET", "/api/products/42");
        assertThat(challenged.statusCode()).isEqualTo(428);
        HttpResponse<String> admitted = RunnableGateway.send(port, "GET", "/api/products/42",
                "Queue-Challenge", PowSolver.solveBody(challenged.body()));
        assertThat(admitted.statusCode()).as(admitted.body()).isEqualTo(200);
        return admitted.headers().firstValue("Queue-Token").orElseThrow();
    }
}
