package io.queuegate.app;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.queuegate.support.HeadlessChromium;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.matching;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo shop's single-page app ({@code demo-backend}'s {@code static/shop/}) in a real headless
 * Chromium, through the runnable gateway with the demo profile: it loads QueueGate's client from
 * {@code /queue/client.js}, pays the anonymous shopper's proof of work, waits with its rank shown
 * by the client's callback while the product's one place is taken, is admitted when that shopper
 * buys, and buys itself; an app on another origin does the same with the CORS settings and the
 * {@code productOf} docs/client.md gives; an app whose product sells out while it waits says so and
 * stops asking. The shop behind is WireMock answering as the demo shop does
 * and serving the app's own files from the repository; the Redis is the demo's embedded one (the
 * demo profile starts on no other). Skipped, saying why, only where Chromium is absent.
 */
class ShopAppBrowserTest {

    private static final String PRODUCT = "{\"id\":\"42\",\"name\":\"Limited sneakers\",\"price\":14900,\"stock\":99}";

    private static WireMockServer shop;
    private static RunnableGateway demo;

    @RegisterExtension
    static final HeadlessChromium chromium = HeadlessChromium.window(1280, 900);

    @BeforeAll
    static void start() throws IOException {
        shop = Backend.start();
        Path app = repository().resolve("demo-backend/src/main/resources/static/shop");
        serve("/shop/index.html", app.resolve("index.html"), "text/html", null);
        serve("/shop/shop.js", app.resolve("shop.js"), "text/javascript", null);
        serve("/shop/shop.css", app.resolve("shop.css"), "text/css", null);
        // The same app under a policy that forbids every worker, as some shops' pages do.
        serve("/shop/no-worker.html", app.resolve("index.html"), "text/html", "worker-src 'none'");
        // With the units left in Queue-Stock, as the demo shop says them.
        shop.stubFor(get(urlPathEqualTo("/api/products/42")).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "application/json").withHeader("Queue-Stock", "99").withBody(PRODUCT)));
        shop.stubFor(post(urlPathEqualTo("/api/products/42/orders")).willReturn(aResponse().withStatus(201)
                .withHeader("Content-Type", "application/json").withHeader("Queue-Stock", "98")
                .withBody("{\"orderId\":7,\"productId\":\"42\",\"quantity\":1,\"remaining\":98,\"userId\":null}")));
        // Product 7 has one unit left; its next order sells it out.
        shop.stubFor(get(urlPathEqualTo("/api/products/7")).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "application/json").withHeader("Queue-Stock", "1")
                .withBody("{\"id\":\"7\",\"name\":\"Concert ticket\",\"price\":8900,\"stock\":1}")));
        shop.stubFor(post(urlPathEqualTo("/api/products/7/orders")).willReturn(aResponse().withStatus(201)
                .withHeader("Content-Type", "application/json").withHeader("Queue-Stock", "0")
                .withBody("{\"orderId\":8,\"productId\":\"7\",\"quantity\":1,\"remaining\":0,\"userId\":null}")));

        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("spring.profiles.active", "demo");
        properties.put("DEMO_BACKEND_URI", shop.baseUrl());
        properties.put("queuegate.products.42.max-active", "1");
        properties.put("queuegate.products.7.max-active", "1");
        RunnableGateway.onTestPorts(properties);
        properties.put("spring.main.banner-mode", "off");
        properties.put("logging.level.root", "WARN");
        // The settings docs/client.md gives an app on another origin: WireMock's own address.
        String cors = "spring.cloud.gateway.server.webflux.globalcors.cors-configurations.[/**].";
        properties.put(cors + "allowed-origins", otherOrigin());
        properties.put(cors + "allowed-methods", "GET,POST,DELETE");
        properties.put(cors + "allowed-headers", "Queue-Token,Queue-Challenge,Content-Type");
        demo = RunnableGateway.start(properties);
        shop.stubFor(get(urlEqualTo("/cross-origin.html")).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "text/html;charset=utf-8").withBody(crossOriginApp())));
    }

    @AfterAll
    static void stop() {
        if (demo != null) {
            demo.close();
        }
        if (shop != null) {
            shop.stop();
        }
    }

    @BeforeEach
    void emptyLine() {
        RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", demo.bean(EmbeddedRedis.class).port()));
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.sync().flushall();
        }
        finally {
            client.shutdown();
        }
        shop.resetRequests();
    }

    @Test
    void theAppWaitsWithItsRankIsAdmittedWhenThePlaceFreesAndBuys() {
        String holder = admittedShopper();
        ChromeDriver browser = chromium.open();
        browser.get(base() + "/shop/index.html");

        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        wait.until(ExpectedConditions.textToBe(By.id("rank"), "1"));
        assertThat(browser.findElement(By.id("solved")).getText())
                .as("the anonymous shopper's proof of work, solved in the client's Web Worker").isEqualTo("in a worker");
        assertThat(browser.findElement(By.id("product")).isDisplayed()).isFalse();
        chromium.screenshot("shop-app-waiting.png");
        shop.verify(1, getRequestedFor(urlEqualTo("/api/products/42")));

        assertThat(RunnableGateway.send(demo.port(), "POST", "/api/products/42/orders", "X-User-Id", "holder",
                "Queue-Token", holder).statusCode()).isEqualTo(201);

        wait.until(ExpectedConditions.textToBe(By.id("name"), "Limited sneakers"));
        assertThat(browser.findElement(By.id("stock")).getText()).isEqualTo("99");
        // The requests the gateway held back while the app waited never reached the shop; the app
        // asked once more when the client said it was admitted.
        shop.verify(2, getRequestedFor(urlEqualTo("/api/products/42")));

        browser.findElement(By.id("buy")).click();
        wait.until(ExpectedConditions.textToBe(By.id("order"), "Order 7 placed."));
        chromium.screenshot("shop-app-bought.png");
        shop.verify(2, postRequestedFor(urlEqualTo("/api/products/42/orders")));
        shop.verify(0, anyRequestedFor(anyUrl()).withHeader("Queue-Token", matching(".*")));

        // The purchase ended the session: a second order is the gateway's session_ended, which the
        // client hands the app as a QueueError with that code, and the shop never sees.
        browser.findElement(By.id("buy")).click();
        wait.until(ExpectedConditions.attributeToBe(By.id("error"), "data-code", "session_ended"));
        shop.verify(2, postRequestedFor(urlEqualTo("/api/products/42/orders")));
    }

    @Test
    void whereNoWorkerMayRunTheProofOfWorkIsSolvedOnThePageAndLeavingGivesThePlaceUp() {
        admittedShopper();
        ChromeDriver browser = chromium.open();
        browser.get(base() + "/shop/no-worker.html");

        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(30));
        wait.until(ExpectedConditions.textToBe(By.id("rank"), "1"));
        assertThat(browser.findElement(By.id("solved")).getText()).isEqualTo("on the page");

        browser.findElement(By.id("leave")).click();
        wait.until(ExpectedConditions.textToBe(By.id("state"), "You left the line."));
        HttpResponse<String> next = RunnableGateway.send(demo.port(), "GET", "/api/products/42",
                "X-User-Id", "next");
        assertThat(next.statusCode()).isEqualTo(429);
        assertThat(next.headers().firstValue("Queue-Rank")).as("the app's place was given up").hasValue("1");
        assertThat(browser.findElement(By.id("error")).isDisplayed()).as("aborting the wait is no error").isFalse();
    }

    @Test
    void anAppOnAnotherOriginWaitsWithTheTokenInTheHeaderAndSolvesOnThePage() {
        String holder = admittedShopper();
        ChromeDriver browser = chromium.open();
        browser.get(otherOrigin() + "/cross-origin.html");

        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(30));
        wait.until(ExpectedConditions.textToBe(By.id("rank"), "1"));
        assertThat(browser.findElement(By.id("solved")).getText())
                .as("a client from the gateway's origin may not start its worker in this page").isEqualTo("page");

        assertThat(RunnableGateway.send(demo.port(), "POST", "/api/products/42/orders", "X-User-Id", "holder",
                "Queue-Token", holder).statusCode()).isEqualTo(201);
        wait.until(ExpectedConditions.textToBe(By.id("name"), "Limited sneakers"));
        shop.verify(2, getRequestedFor(urlEqualTo("/api/products/42")));
    }

    @Test
    void anAppWhoseProductSellsOutWhileItWaitsSaysSoldOutAndStopsAsking() {
        String holder = admittedShopper("7");
        ChromeDriver browser = chromium.open();
        browser.get(base() + "/shop/index.html?product=7");

        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(30));
        wait.until(ExpectedConditions.textToBe(By.id("rank"), "1"));
        // The shop's Queue-Stock on the holder's product page: the client's callback has it.
        wait.until(ExpectedConditions.textToBe(By.id("left"),
                "1 left: maybe not enough for everyone ahead of you."));

        assertThat(RunnableGateway.send(demo.port(), "POST", "/api/products/7/orders", "X-User-Id", "holder",
                "Queue-Token", holder).statusCode()).isEqualTo(201);
        wait.until(ExpectedConditions.textToBe(By.id("state"), "Sold out."));
        assertThat(browser.findElement(By.id("line")).isDisplayed()).isFalse();
        assertThat(browser.findElement(By.id("error")).isDisplayed()).as("sold out is no error").isFalse();
        chromium.screenshot("shop-app-sold-out.png");

        String asked = "return performance.getEntriesByType('resource').filter(function (e) {"
                + " return e.name.indexOf('/queue/7/') >= 0 || e.name.indexOf('/api/products/7') >= 0; }).length";
        long before = ((Number) browser.executeScript(asked)).longValue();
        // Watched for three seconds (three of the page's one-second looks, a poll's shortest Retry-After).
        Awaitility.await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(((Number) browser.executeScript(asked)).longValue()).as("the client asks no more")
                        .isEqualTo(before));
        HttpResponse<String> fresh = RunnableGateway.send(demo.port(), "GET", "/api/products/7", "X-User-Id", "late",
                "Accept", "application/json");
        assertThat(fresh.statusCode()).isEqualTo(410);
        assertThat(fresh.body()).contains("\"error\":\"sold_out\"");
        shop.verify(1, getRequestedFor(urlEqualTo("/api/products/7")));
    }

    /** A signed-in shopper (the demo believes X-User-Id from loopback) who takes the product's one place. */
    private static String admittedShopper() {
        return admittedShopper("42");
    }

    private static String admittedShopper(String productId) {
        HttpResponse<String> admitted = RunnableGateway.send(demo.port(), "GET", "/api/products/" + productId,
                "X-User-Id", "holder");
        assertThat(admitted.statusCode()).isEqualTo(200);
        return admitted.headers().firstValue("Queue-Token").orElseThrow();
    }

    private static String base() {
        return "http://127.0.0.1:" + demo.port();
    }

    /** WireMock's address by another name than the gateway's: another origin, and another site. */
    private static String otherOrigin() {
        return "http://localhost:" + shop.port();
    }

    /**
     * An app on another origin that loads the client from the gateway, with the productOf of
     * docs/client.md: no token cookie travels to the gateway from here.
     */
    private static String crossOriginApp() {
        String gateway = base();
        return """
                <!DOCTYPE html>
                <html lang="en"><head><meta charset="utf-8"><title>Another origin</title></head>
                <body><p id="rank"></p><p id="solved"></p><h2 id="name"></h2><p id="error"></p>
                <script type="module">
                import { QueueClient } from '%1$s/queue/client.js';
                const queue = new QueueClient({
                  productOf: (url) => new URL(url).pathname.match(/^\\/api\\/products\\/([^/]+)/)?.[1] ?? null,
                  onStatus: (place) => { document.getElementById('rank').textContent = String(place.rank); },
                  onSolved: (solved) => { document.getElementById('solved').textContent = solved.solvedIn; },
                });
                const product = '%1$s/api/products/42';
                const json = { headers: { Accept: 'application/json' } };
                try {
                  let answer = await queue.fetch(product, json);
                  while (answer === null) {
                    answer = await queue.fetch(product, json);
                  }
                  document.getElementById('name').textContent = (await answer.json()).name;
                }
                catch (error) {
                  document.getElementById('error').textContent = String(error);
                }
                </script></body></html>
                """.formatted(gateway);
    }

    private static void serve(String path, Path file, String type, String policy) throws IOException {
        var answer = aResponse().withStatus(200).withHeader("Content-Type", type + ";charset=utf-8")
                .withBody(Files.readAllBytes(file));
        if (policy != null) {
            answer = answer.withHeader("Content-Security-Policy", policy);
        }
        // By path: the app takes its product from the query (?product=7).
        shop.stubFor(get(urlPathEqualTo(path)).willReturn(answer));
    }

    private static Path repository() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("lua")) && Files.isDirectory(dir.resolve("demo-backend"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no repository above " + Path.of("").toAbsolutePath());
    }
}
