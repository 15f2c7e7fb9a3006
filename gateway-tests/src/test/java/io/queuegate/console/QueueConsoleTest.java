package io.queuegate.console;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.client.WebClient;

import reactor.core.publisher.Flux;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator console ({@code /actuator/queueconsole}): only on a management port of its own,
 * one endpoint that pages through every product however many there are, and the queues
 * endpoint it acts through refusing what another site would make an operator's browser send,
 * also under a name of its own that resolves to the gateway (DNS rebinding), in a shop's gateway
 * without Spring Security as much as in the runnable one.
 */
class QueueConsoleTest {

    private static RedisProcess redis;
    private static WireMockServer backend;
    private static final List<GatewayInstance> gateways = new ArrayList<>();
    private static GatewayInstance console;
    private static GatewayInstance shared;
    private static WebTestClient management;

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        backend = Backend.start();
        Map<String, Object> properties = GatewayInstance.defaults(redis, backend.baseUrl(), Map.of("max-active", "1",
                "session-ttl", "10m"));
        properties.put("management.server.port", "0");
        properties.put("management.endpoints.web.exposure.include", "health,queues,queueconsole");
        properties.put("queuegate.console.sample-interval", "1s");
        // The console pages through all products, not just the ones the metrics tag.
        properties.put("queuegate.metrics.max-products", "50");
        properties.put("queuegate.products.hot.display-name", "Limited sneakers");
        properties.put("queuegate.operations.allowed-hosts", "queuegate-management.shop.svc");
        // Two thousand joins from this one test address.
        properties.put("queuegate.joins.max-per-address", "100000");
        console = GatewayInstance.start(properties);
        gateways.add(console);

        Map<String, Object> sameport = GatewayInstance.defaults(redis, backend.baseUrl(), Map.of("max-active", "1"));
        sameport.put("management.endpoints.web.exposure.include", "health,queues,queueconsole");
        shared = GatewayInstance.start(sameport);
        gateways.add(shared);
        management = WebTestClient.bindToServer().baseUrl(console.managementUrl())
                .responseTimeout(Duration.ofSeconds(20)).build();
    }

    @AfterAll
    static void stop() {
        GatewayInstance.closeAll(gateways);
        backend.stop();
        redis.close();
    }

    @Test
    void servesTheConsoleOnTheManagementPortOnlyAndForbidsFramingIt() {
        management.get().uri("/actuator/queueconsole").accept(MediaType.TEXT_HTML).exchange()
                .expectStatus().isOk()
                .expectHeader().contentTypeCompatibleWith(MediaType.TEXT_HTML)
                .expectHeader().valueEquals("X-Frame-Options", "DENY")
                .expectHeader().value("Content-Security-Policy", policy -> assertThat(policy)
                        .contains("frame-ancestors 'none'").contains("script-src 'sha256-")
                        .contains("connect-src 'self'").doesNotContain("unsafe-inline"))
                .expectBody(String.class).value(html -> assertThat(html).contains("<title>QueueGate console</title>"));

        console.client().get().uri("/actuator/queueconsole").exchange().expectStatus().isNotFound();
        console.client().get().uri("/actuator/queueconsole/products").exchange().expectStatus().isNotFound();
        console.client().get().uri("/actuator/queues").exchange().expectStatus().isNotFound();
    }

    @Test
    void isOffWhereTheActuatorSharesTheShopperPort() {
        shared.client().get().uri("/actuator/queueconsole").accept(MediaType.TEXT_HTML).exchange()
                .expectStatus().isNotFound();
        shared.client().get().uri("/actuator/queues").exchange().expectStatus().isOk();
    }

    @Test
    void pagesThroughAThousandProductsMostWaitingFirstBeyondTheMetricsBound() {
        redis.flushAll();
        List<String> users = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            String product = String.format("p%04d", i);
            users.add(product + " holder-" + i);
            users.add(product + " waiter-" + i);
        }
        for (int i = 0; i < 6; i++) {
            users.add("hot u" + i);
        }
        for (int i = 0; i < 4; i++) {
            users.add("warm u" + i);
        }
        WebClient shop = WebClient.create(console.baseUrl());
        Flux.fromIterable(users)
                .flatMapSequential(entry -> shop.get().uri("/api/products/" + entry.split(" ")[0])
                        .header("X-User-Id", entry.split(" ")[1])
                        .exchangeToMono(response -> response.releaseBody().thenReturn(response.statusCode().value())), 16)
                .collectList().block(Duration.ofSeconds(120));

        Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> management.get()
                .uri("/actuator/queueconsole/products?size=20").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.total").isEqualTo(1002));

        management.get().uri("/actuator/queueconsole/products?size=20").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.pages").isEqualTo(51)
                .jsonPath("$.writable").isEqualTo(true)
                .jsonPath("$.products.length()").isEqualTo(20)
                .jsonPath("$.products[0].productId").isEqualTo("hot")
                .jsonPath("$.products[0].displayName").isEqualTo("Limited sneakers")
                .jsonPath("$.products[0].queue.waiting").isEqualTo(5)
                .jsonPath("$.products[0].queue.active").isEqualTo(1)
                .jsonPath("$.products[0].queue.capacity").isEqualTo(1)
                .jsonPath("$.products[0].queue.mode").isEqualTo("queue")
                .jsonPath("$.products[1].productId").isEqualTo("warm")
                .jsonPath("$.products[1].queue.waiting").isEqualTo(3)
                .jsonPath("$.products[2].queue.waiting").isEqualTo(1);
        management.get().uri("/actuator/queueconsole/products?size=20&page=51").exchange()
                .expectBody()
                .jsonPath("$.page").isEqualTo(51)
                .jsonPath("$.products.length()").isEqualTo(2);
        management.get().uri("/actuator/queueconsole/products?sort=product&size=100&page=10").exchange()
                .expectBody()
                .jsonPath("$.products.length()").isEqualTo(100)
                .jsonPath("$.products[0].productId").isEqualTo("p0899");
        management.get().uri("/actuator/queueconsole/products?filter=SNEAK").exchange()
                .expectBody()
                .jsonPath("$.total").isEqualTo(1)
                .jsonPath("$.products[0].productId").isEqualTo("hot");
        management.get().uri("/actuator/queueconsole/products?filter=p012").exchange()
                .expectBody()
                .jsonPath("$.total").isEqualTo(10);
        management.get().uri("/actuator/queueconsole/somethingelse").exchange().expectStatus().isNotFound();
    }

    @Test
    void chartsEachProductsAdmissionRateFromItsSamples() {
        redis.flushAll();
        WebClient shop = WebClient.create(console.baseUrl());
        shop.get().uri("/api/products/charted").header("X-User-Id", "alice").retrieve().toBodilessEntity()
                .block(Duration.ofSeconds(10));

        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> management.get()
                .uri("/actuator/queueconsole/products?filter=charted").exchange()
                .expectBody()
                .jsonPath("$.products[0].admissionRates.length()").value(length ->
                        assertThat((Integer) length).isGreaterThanOrEqualTo(2))
                .jsonPath("$.products[0].admissionRates[0].length()").isEqualTo(2)
                .jsonPath("$.sampleIntervalSeconds").isEqualTo(1)
                .jsonPath("$.historySeconds").isEqualTo(1800));
    }

    @Test
    void findsAProductItDoesNotListByItsExactId() {
        redis.flushAll();
        management.post().uri("/actuator/queues/quiet").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"action\":\"drain\"}").exchange().expectStatus().isOk();

        management.get().uri("/actuator/queueconsole/products?filter=quiet").exchange()
                .expectBody()
                .jsonPath("$.total").isEqualTo(1)
                .jsonPath("$.products[0].queue.draining").isEqualTo(true);
    }

    @Test
    void showsTheStockAnOperatorSetAndWhenItSoldOut() {
        redis.flushAll();
        management.post().uri("/actuator/queues/counted").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"action\":\"stock\",\"value\":\"12\"}").exchange().expectStatus().isOk();
        management.get().uri("/actuator/queueconsole/products?filter=counted").exchange()
                .expectBody()
                .jsonPath("$.products[0].queue.stock.left").isEqualTo(12)
                .jsonPath("$.products[0].queue.stock.unitsPerShopper").isEqualTo(1)
                .jsonPath("$.products[0].queue.stock.source").isEqualTo("set")
                .jsonPath("$.products[0].queue.stock.soldOutAt").doesNotExist();

        management.post().uri("/actuator/queues/counted").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"action\":\"stock\",\"value\":\"0\"}").exchange().expectStatus().isOk();
        management.get().uri("/actuator/queueconsole/products?filter=counted").exchange()
                .expectBody()
                .jsonPath("$.products[0].queue.stock.left").isEqualTo(0)
                .jsonPath("$.products[0].queue.stock.soldOutAt").value((Object at) ->
                        assertThat(String.valueOf(at)).matches("[0-9]{4}-[0-9]{2}-[0-9]{2}T.*Z"));

        management.post().uri("/actuator/queues/counted").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"action\":\"stock\",\"value\":\"\"}").exchange().expectStatus().isOk();
        management.get().uri("/actuator/queueconsole/products?filter=counted").exchange()
                .expectBody()
                .jsonPath("$.products[0].queue.stock").doesNotExist();
    }

    /** An operator's change to a product nobody is in lists it, so it can be changed back. */
    @Test
    void listsAProductNobodyIsInOnceAnOperatorClosesIt() {
        redis.flushAll();
        management.post().uri("/actuator/queues/quiet").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"action\":\"mode\",\"value\":\"closed\"}").exchange().expectStatus().isOk();
        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> management.get()
                .uri("/actuator/queueconsole/products?size=20").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.products[?(@.productId == 'quiet')].queue.mode").isEqualTo("closed"));
    }

    @Test
    void refusesAChangeAnotherSiteMakesAnOperatorsBrowserSend() {
        redis.flushAll();
        // A cross-site form can send only form or text bodies: the actuator takes JSON alone.
        management.post().uri("/actuator/queues/42").contentType(MediaType.TEXT_PLAIN)
                .header("Origin", "http://evil.example").bodyValue("{\"action\":\"pause\"}").exchange()
                .expectStatus().value(status -> assertThat(status).isIn(403, 415));
        management.post().uri("/actuator/queues/42").contentType(MediaType.APPLICATION_FORM_URLENCODED)
                .bodyValue("action=pause").exchange()
                .expectStatus().isEqualTo(415);
        // JSON, as a page could send it where CORS is opened too wide, or from the shopper port next door.
        for (String[] marks : new String[][] { { "Origin", "http://evil.example" },
                { "Origin", "http://localhost:" + console.port() }, { "Origin", "null" },
                { "Sec-Fetch-Site", "cross-site" }, { "Sec-Fetch-Site", "same-site" } }) {
            management.post().uri("/actuator/queues/42").contentType(MediaType.APPLICATION_JSON)
                    .header(marks[0], marks[1]).bodyValue("{\"action\":\"pause\"}").exchange()
                    .expectStatus().isForbidden()
                    .expectBody().jsonPath("$.error").isEqualTo("cross_site_request");
        }
        assertThat(redis.commands().hget("qg:{42}:settings", "mode")).as("nothing was paused").isNull();

        // The console's own requests, and clients that are not browsers, act.
        management.post().uri("/actuator/queues/42").contentType(MediaType.APPLICATION_JSON)
                .header("Origin", console.managementUrl()).header("Sec-Fetch-Site", "same-origin")
                .bodyValue("{\"action\":\"pause\"}").exchange()
                .expectStatus().isOk().expectBody().jsonPath("$.queue.paused").isEqualTo(true);
        management.post().uri("/actuator/queues/42").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"action\":\"resume\"}").exchange()
                .expectStatus().isOk().expectBody().jsonPath("$.queue.paused").isEqualTo(false);
    }

    @Test
    void aRebindingPagesNameActsOnNothingButReadsStillAnswer() {
        redis.flushAll();
        String evil = "evil.example:" + console.managementPort();
        // What the browser of a rebinding page sends: its own name, and same-origin by its own account.
        management.post().uri("/actuator/queues/42").contentType(MediaType.APPLICATION_JSON)
                .header("Host", evil).header("Origin", "http://" + evil).header("Sec-Fetch-Site", "same-origin")
                .bodyValue("{\"action\":\"pause\"}").exchange()
                .expectStatus().isEqualTo(421)
                .expectBody().jsonPath("$.error").isEqualTo("host_not_allowed");
        management.get().uri("/actuator/queueconsole").header("Host", evil).exchange()
                .expectStatus().isEqualTo(421)
                .expectBody(String.class).value(body -> assertThat(body).doesNotContain("QueueGate console"));
        management.get().uri("/actuator/queueconsole/products").header("Host", evil).exchange()
                .expectStatus().isEqualTo(421);
        assertThat(redis.commands().hget("qg:{42}:settings", "mode")).as("nothing was paused").isNull();

        // Probes and scrapers ask by an address or a Service's name: reads are not checked.
        management.get().uri("/actuator/queues").header("Host", "10.1.2.3:9090").exchange().expectStatus().isOk();
        management.get().uri("/actuator/health").header("Host", evil).exchange().expectStatus().isOk();
        // A name from queuegate.operations.allowed-hosts acts, as the loopback does.
        management.post().uri("/actuator/queues/42").contentType(MediaType.APPLICATION_JSON)
                .header("Host", "queuegate-management.shop.svc:" + console.managementPort())
                .bodyValue("{\"action\":\"pause\"}").exchange()
                .expectStatus().isOk().expectBody().jsonPath("$.queue.paused").isEqualTo(true);
        management.post().uri("/actuator/queues/42").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"action\":\"resume\"}").exchange()
                .expectStatus().isOk().expectBody().jsonPath("$.queue.paused").isEqualTo(false);
        // The shopper port is the shop's: any name, any write passes to the routes as before.
        console.client().get().uri("/api/products/9").header("Host", evil).header("X-User-Id", "rebound")
                .exchange().expectStatus().isOk();
    }
}
