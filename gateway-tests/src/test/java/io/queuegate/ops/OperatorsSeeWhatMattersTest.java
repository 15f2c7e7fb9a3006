package io.queuegate.ops;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The attack that blinded operators: requests for many invented product ids, each taking one
 * session, filled the queues listing and the gauges and pushed the busy product out of both. Here
 * the listing and the gauges, bounded to a few products, still show the busy product first and a
 * product whose shoppers are all admitted, and the gauges never hold more products than the bound.
 */
class OperatorsSeeWhatMattersTest {

    private static final int BOUND = 12;
    private static final int INVENTED = 3 * BOUND;

    private static RedisProcess redis;
    private static WireMockServer backend;
    private static GatewayInstance gateway;
    private static ShopClient shop;
    private static MeterRegistry meters;

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        backend = Backend.start();
        Map<String, Object> properties = GatewayInstance.defaults(redis, backend.baseUrl(), Map.of(
                "max-active", "1",
                "session-ttl", "1m",
                "promotion", "pubsub"));
        properties.put("queuegate.metrics.max-products", Integer.toString(BOUND));
        properties.put("queuegate.metrics.refresh-interval", "100ms");
        // A product whose only shoppers are admitted: two places, both taken, nobody waiting.
        properties.put("queuegate.products.calm.max-active", "2");
        properties.put("management.endpoints.web.exposure.include", "health,queues");
        gateway = GatewayInstance.start(properties);
        shop = new ShopClient(gateway);
        meters = gateway.bean(MeterRegistry.class);
    }

    @AfterAll
    static void stop() {
        gateway.close();
        backend.stop();
        redis.close();
    }

    @Test
    void aFloodOfInventedIdsPushesNeitherTheBusyProductNorTheAdmittedOnesOut() {
        shop.get("busy", "alice", null).expectStatus().isOk();
        shop.get("busy", "bob", null).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
        shop.get("busy", "carol", null).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
        shop.get("calm", "dave", null).expectStatus().isOk();
        shop.get("calm", "erin", null).expectStatus().isOk();
        // The shop's products were busy before the attack began: the gauges show them.
        Awaitility.await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(gauge("queuegate.waiting", "busy")).isEqualTo(2));
        // The attacker: one session on each of many ids nobody sells.
        for (int i = 0; i < INVENTED; i++) {
            shop.get("zz-invented-" + i, "mallory-" + i, null).expectStatus().isOk();
        }
        shop.get("busy", "frank", null).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
        // New waiters and admissions reach Redis's indexes in batches (ProductRegistry.FLUSH_PERIOD).
        Awaitility.await().atMost(Duration.ofSeconds(3))
                .until(() -> redis.commands().zcard("qg:activity") == INVENTED + 2);

        shop.raw().get().uri("/actuator/queues").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.truncated").isEqualTo(true)
                .jsonPath("$.products.length()").isEqualTo(BOUND)
                .jsonPath("$.products[0].productId").isEqualTo("busy")
                .jsonPath("$.products[0].waiting").isEqualTo(3)
                .jsonPath("$.products[1].productId").isEqualTo("calm")
                .jsonPath("$.products[1].waiting").isEqualTo(0)
                .jsonPath("$.products[1].active").isEqualTo(2)
                .jsonPath("$.products[2].active").isEqualTo(1);

        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(gauge("queuegate.waiting", "busy")).isEqualTo(3);
            assertThat(gauge("queuegate.active", "calm")).isEqualTo(2);
        });
        Set<String> gauged = Search.in(meters).name("queuegate.waiting").gauges().stream()
                .map(gauge -> gauge.getId().getTag("product"))
                .collect(Collectors.toSet());
        assertThat(gauged).contains("busy", "calm").hasSizeLessThanOrEqualTo(BOUND);
        // The per-product counters keep the busy product's own tag through the flood.
        assertThat(Search.in(meters).name("queuegate.joins").tag("product", "busy").counter())
                .isNotNull()
                .satisfies(counter -> assertThat(counter.count()).isEqualTo(4));
    }

    private static double gauge(String name, String productId) {
        Gauge gauge = Search.in(meters).name(name).tag("product", productId).gauge();
        return gauge == null ? -1 : gauge.value();
    }
}
