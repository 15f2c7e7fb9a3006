package io.queuegate.web;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.HeadlessChromium;
import io.queuegate.support.Invites;
import io.queuegate.support.RedisProcess;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.web.reactive.function.client.WebClient;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A presale's invitation link in a real headless Chromium: the shopper opens the link while the
 * product is full, the waiting page takes the invitation out of the address bar at once, and when
 * their turn comes the page moves on to the product by itself, on the address without it; a
 * shopper admitted at once is sent on to that address before the shop's page shows; the shop
 * never sees the invitation. Skipped, saying why, only where Chromium is absent.
 */
class InviteLinkBrowserTest {


    private static RedisProcess redis;
    private static WireMockServer backend;
    private static GatewayInstance gateway;
    private ChromeDriver browser;

    @RegisterExtension
    static final HeadlessChromium chromium = HeadlessChromium.window(420, 860);

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        backend = Backend.start();
        backend.stubFor(get(urlPathEqualTo("/api/products/42")).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "text/html")
                .withBody("<html><body><h1 id=\"product\">Presale sneakers</h1></body></html>")));
        Map<String, Object> properties = new HashMap<>(GatewayInstance.defaults(redis, backend.baseUrl(), Map.of(
                "max-active", "1",
                "session-ttl", "10m",
                "promotion", "pubsub",
                "invites", "required")));
        properties.put("queuegate.invites.secret", Invites.SECRET);
        gateway = GatewayInstance.start(properties);
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
            backend.stop();
            redis.close();
        }
    }

    @BeforeEach
    void emptyQueues() {
        redis.flushAll();
        gateway.forgetRedis();
        backend.resetRequests();
    }

    @Test
    void theInvitationLeavesTheAddressBarAndThePageMovesOnWithoutIt() {
        String holder = WebClient.create(gateway.baseUrl()).get().uri("/api/products/42").header("X-User-Id", "holder")
                .header("Queue-Invite", Invites.forProduct("42"))
                .exchangeToMono(r -> r.releaseBody().thenReturn(r.headers().asHttpHeaders().getFirst("Queue-Token")))
                .block(Duration.ofSeconds(5));
        String invitation = Invites.forProduct("42");
        browser = chromium.open();
        browser.get(gateway.baseUrl() + "/api/products/42?ref=mail&invite=" + invitation + "#sizes");

        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(10));
        wait.until(ExpectedConditions.textToBe(By.id("rank"), "1"));
        wait.until(driver -> !driver.getCurrentUrl().contains("invite"));
        assertThat(browser.getCurrentUrl()).isEqualTo(gateway.baseUrl() + "/api/products/42?ref=mail#sizes");
        chromium.screenshot("invite-link-waiting.png");

        WebClient.create(gateway.baseUrl()).delete().uri("/queue/42").header("X-User-Id", "holder")
                .header("Queue-Token", holder).retrieve().toBodilessEntity().block(Duration.ofSeconds(5));

        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("product")));
        assertThat(browser.getCurrentUrl()).doesNotContain("invite");
        assertThat(backend.getAllServeEvents()).isNotEmpty().allSatisfy(event ->
                assertThat(event.getRequest().getUrl()).doesNotContain("invite").doesNotContain(invitation));
    }

    @Test
    void aLinkThatAdmitsAtOnceLeavesTheAddressBarWithoutTheInvitationToo() {
        String invitation = Invites.forProduct("42");
        browser = chromium.open();
        browser.get(gateway.baseUrl() + "/api/products/42?ref=mail&invite=" + invitation + "#sizes");

        new WebDriverWait(browser, Duration.ofSeconds(10))
                .until(ExpectedConditions.presenceOfElementLocated(By.id("product")));
        assertThat(browser.getCurrentUrl()).isEqualTo(gateway.baseUrl() + "/api/products/42?ref=mail#sizes");
        chromium.screenshot("invite-link-admitted.png");
        assertThat(backend.getAllServeEvents()).singleElement().satisfies(event ->
                assertThat(event.getRequest().getUrl()).isEqualTo("/api/products/42?ref=mail"));
        assertThat(redis.commands().zrange("qg:{42}:active", 0, -1)).hasSize(1);
    }

    @Test
    void aLinkWithoutAnInvitationShowsThePageThatSaysSo() {
        browser = chromium.open();
        browser.get(gateway.baseUrl() + "/api/products/42");
        assertThat(browser.getTitle()).isEqualTo("Invitation only");
        assertThat(browser.findElement(By.tagName("body")).getText()).contains("invited shoppers only");
        chromium.screenshot("invite-only.png");
    }
}
