package io.queuegate.web;

import java.time.Duration;
import java.util.Map;

import io.queuegate.support.GatewayFixture;
import io.queuegate.support.HeadlessChromium;
import io.queuegate.support.Invites;

import org.junit.jupiter.api.BeforeAll;
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


    private ChromeDriver browser;

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of(
                    "max-active", "1",
                    "session-ttl", "10m",
                    "promotion", "pubsub",
                    "invites", "required"))
            .with("queuegate.invites.secret", Invites.SECRET);

    @RegisterExtension
    static final HeadlessChromium chromium = HeadlessChromium.window(420, 860);

    @BeforeAll
    static void shop() {
        fixture.backend().stubFor(get(urlPathEqualTo("/api/products/42")).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "text/html")
                .withBody("<html><body><h1 id=\"product\">Presale sneakers</h1></body></html>")));
    }

    @Test
    void theInvitationLeavesTheAddressBarAndThePageMovesOnWithoutIt() {
        String holder = WebClient.create(fixture.gateway().baseUrl()).get().uri("/api/products/42").header("X-User-Id", "holder")
                .header("Queue-Invite", Invites.forProduct("42"))
                .exchangeToMono(r -> r.releaseBody().thenReturn(r.headers().asHttpHeaders().getFirst("Queue-Token")))
                .block(Duration.ofSeconds(5));
        String invitation = Invites.forProduct("42");
        browser = chromium.open();
        browser.get(fixture.gateway().baseUrl() + "/api/products/42?ref=mail&invite=" + invitation + "#sizes");

        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(10));
        wait.until(ExpectedConditions.textToBe(By.id("rank"), "1"));
        wait.until(driver -> !driver.getCurrentUrl().contains("invite"));
        assertThat(browser.getCurrentUrl()).isEqualTo(fixture.gateway().baseUrl() + "/api/products/42?ref=mail#sizes");
        chromium.screenshot("invite-link-waiting.png");

        WebClient.create(fixture.gateway().baseUrl()).delete().uri("/queue/42").header("X-User-Id", "holder")
                .header("Queue-Token", holder).retrieve().toBodilessEntity().block(Duration.ofSeconds(5));

        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("product")));
        assertThat(browser.getCurrentUrl()).doesNotContain("invite");
        assertThat(fixture.backend().getAllServeEvents()).isNotEmpty().allSatisfy(event ->
                assertThat(event.getRequest().getUrl()).doesNotContain("invite").doesNotContain(invitation));
    }

    @Test
    void aLinkThatAdmitsAtOnceLeavesTheAddressBarWithoutTheInvitationToo() {
        String invitation = Invites.forProduct("42");
        browser = chromium.open();
        browser.get(fixture.gateway().baseUrl() + "/api/products/42?ref=mail&invite=" + invitation + "#sizes");

        new WebDriverWait(browser, Duration.ofSeconds(10))
                .until(ExpectedConditions.presenceOfElementLocated(By.id("product")));
        assertThat(browser.getCurrentUrl()).isEqualTo(fixture.gateway().baseUrl() + "/api/products/42?ref=mail#sizes");
        chromium.screenshot("invite-link-admitted.png");
        assertThat(fixture.backend().getAllServeEvents()).singleElement().satisfies(event ->
                assertThat(event.getRequest().getUrl()).isEqualTo("/api/products/42?ref=mail"));
        assertThat(fixture.redis().commands().zrange("qg:{42}:active", 0, -1)).hasSize(1);
    }

    @Test
    void aLinkWithoutAnInvitationShowsThePageThatSaysSo() {
        browser = chromium.open();
        browser.get(fixture.gateway().baseUrl() + "/api/products/42");
        assertThat(browser.getTitle()).isEqualTo("Invitation only");
        assertThat(browser.findElement(By.tagName("body")).getText()).contains("invited shoppers only");
        chromium.screenshot("invite-only.png");
    }
}
