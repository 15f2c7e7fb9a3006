package io.queuegate.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.HeadlessChromium;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.containing;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo as a shopper's browser sees it, in headless Chromium through the runnable gateway with
 * the demo profile: the waiting page carries the demo shop's name, logo and colours, and names
 * the product in the page's language; once it is the shopper's turn the browser lands on the
 * shop's product page (the demo shop's own template, as {@code demo-backend} answers a browser),
 * not on JSON. Both pass axe-core's WCAG 2.2 AA rules at 390 and 1280 px, in English and Korean.
 * Screenshots {@code gateway-app/target/screenshots/demo-*}. Skipped, saying why, only where
 * Chromium is absent.
 */
class DemoPagesBrowserTest {

    private static WireMockServer shop;
    private static RunnableGateway demo;

    @RegisterExtension
    static final HeadlessChromium chromium = HeadlessChromium.window(1280, 900);

    @BeforeAll
    static void start() throws IOException {
        shop = Backend.start();
        Path app = repository().resolve("demo-backend/src/main/resources/static/shop");
        serve("/shop/shop.css", Files.readAllBytes(app.resolve("shop.css")), "text/css");
        serve("/shop/logo.svg", Files.readAllBytes(app.resolve("logo.svg")), "image/svg+xml");
        // The product pages, as the demo shop renders its template for a browser: product 42 for an
        // English shopper, 7 for a Korean one.
        String template = Files.readString(repository().resolve("demo-backend/src/main/resources/pages/product.html"));
        product("42", "Limited sneakers", "149.00", template.replace("{{lang}}", "en").replace("{{shop}}", "Demo shop")
                .replace("{{left}}", "99 left").replace("{{buy}}", "Buy one")
                .replace("{{note}}", "A demo: nothing is really sold or charged."));
        product("7", "Concert ticket", "89.00", template.replace("{{lang}}", "ko").replace("{{shop}}", "데모 쇼핑몰")
                .replace("{{left}}", "남은 수량 99개").replace("{{buy}}", "1개 구매")
                .replace("{{note}}", "데모입니다. 실제로 판매되거나 결제되지 않습니다."));

        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("spring.profiles.active", "demo");
        properties.put("DEMO_BACKEND_URI", shop.baseUrl());
        RunnableGateway.onTestPorts(properties);
        properties.put("spring.main.banner-mode", "off");
        properties.put("logging.level.root", "WARN");
        demo = RunnableGateway.start(properties);
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

    @Test
    void theBrandedWaitingPageHandsTheShopperToTheShopsProductPage() {
        shopper("en-US", "42", "You are in line for Limited sneakers", "Limited sneakers");
        shopper("ko-KR", "7", "콘서트 티켓 구매 대기 중입니다", "Concert ticket");
    }

    private void shopper(String language, String product, String waitingTitle, String productName) {
        String tag = language.substring(0, 2);
        // The demo admits two at a time: both places are taken.
        String first = holder(product, "first");
        holder(product, "second");
        ChromeDriver browser = chromium.open(language);
        browser.get("http://127.0.0.1:" + demo.port() + "/api/products/" + product);
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(30));
        // An anonymous shopper: the browser check first, then the waiting page.
        wait.until(ExpectedConditions.textToBe(By.id("rank"), "1"));
        assertThat(browser.findElement(By.id("shop-name")).getText()).isEqualTo("Demo shop");
        assertThat(browser.getTitle()).isEqualTo(waitingTitle);
        assertThat(browser.executeScript("return document.querySelector('.logo').naturalWidth"))
                .as("the shop's logo, through the gateway").isNotEqualTo(0L);
        chromium.assertAccessibleAtWidths("demo-waiting-" + tag);

        assertThat(RunnableGateway.send(demo.port(), "POST", "/api/products/" + product + "/orders", "X-User-Id",
                "first", "Queue-Token", first).statusCode()).isEqualTo(201);
        wait.until(ExpectedConditions.presenceOfElementLocated(
                By.cssSelector("form[action='/api/products/" + product + "/orders']")));
        assertThat(browser.findElement(By.tagName("h1")).getText()).isEqualTo(productName);
        assertThat(browser.findElement(By.tagName("html")).getAttribute("lang")).isEqualTo(tag);
        chromium.assertAccessibleAtWidths("demo-product-" + tag);
        chromium.close();
    }

    /** A product as the demo shop answers it: its page for a browser, JSON for everyone else. */
    private static void product(String id, String name, String price, String page) {
        shop.stubFor(get(urlPathEqualTo("/api/products/" + id)).withHeader("Accept", containing("text/html"))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "text/html;charset=utf-8")
                        .withHeader("Queue-Stock", "99").withBody(page.replace("{{name}}", name).replace("{{id}}", id)
                                .replace("{{price}}", price))));
        shop.stubFor(get(urlPathEqualTo("/api/products/" + id)).atPriority(10).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "application/json").withHeader("Queue-Stock", "99")
                .withBody("{\"id\":\"" + id + "\",\"name\":\"" + name + "\",\"stock\":99}")));
        shop.stubFor(post(urlPathEqualTo("/api/products/" + id + "/orders")).willReturn(aResponse().withStatus(201)
                .withHeader("Content-Type", "application/json").withHeader("Queue-Stock", "98")
                .withBody("{\"orderId\":1,\"remaining\":98}")));
    }

    private static String holder(String product, String user) {
        var answer = RunnableGateway.send(demo.port(), "GET", "/api/products/" + product, "X-User-Id", user);
        assertThat(answer.statusCode()).as(user).isEqualTo(200);
        return answer.headers().firstValue("Queue-Token").orElseThrow();
    }

    private static void serve(String path, byte[] body, String type) {
        shop.stubFor(get(urlPathEqualTo(path)).willReturn(aResponse().withStatus(200).withHeader("Content-Type", type)
                .withBody(body)));
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
