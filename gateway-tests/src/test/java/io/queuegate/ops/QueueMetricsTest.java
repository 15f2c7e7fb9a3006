package io.queuegate.ops;

import java.time.Duration;
import java.util.Map;

import com.github.tomakehurst.wiremock.WireMockServer;
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
 * QueueGate's meters through a running gateway on a real Redis with WireMock as the shop: read
 * from the MeterRegistry and scraped from {@code /actuator/prometheus}. Each test uses its own
 * product, so the counters of one test are not another's.
 */
class QueueMetricsTest {

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
                "promotion", "pubsub",
                "complete-on", "POST /api/products/{productId}/orders"));
        properties.put("queuegate.metrics.refresh-interval", "100ms");
        properties.put("queuegate.redis.timeout", "300ms");
        properties.put("queuegate.products.unchecked.on-redis-failure", "open");
        properties.put("management.endpoints.web.exposure.include", "health,info,prometheus,queues");
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
    void joinsAdmissionsCompletionsAndLeavesAreCountedPerProduct() {
        String alice = ShopClient.tokenOf(shop.get("p1", "alice", null).expectStatus().isOk());
        shop.get("p1", "bob", null).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
        String carol = ShopClient.tokenOf(shop.get("p1", "carol", null));
        shop.order("p1", "alice", alice).expectStatus().isCreated();
        shop.leave("p1", "carol", carol).expectStatus().isOk();

        assertThat(count("queuegate.joins", "product", "p1", "route", "products")).isEqualTo(3);
        assertThat(count("queuegate.admissions", "product", "p1", "trigger", "join")).isEqualTo(1);
        assertThat(count("queuegate.admissions", "product", "p1", "trigger", "completion")).isEqualTo(1);
        assertThat(count("queuegate.completions", "product", "p1", "route", "products")).isEqualTo(1);
        assertThat(count("queuegate.leaves", "product", "p1")).isEqualTo(1);
        // Polling with a token is no join.
        shop.get("p1", "carol", null);
        assertThat(count("queuegate.joins", "product", "p1", "route", "products")).isEqualTo(4);
    }

    @Test
    void theWaitIsTimedOnceWhenAWaitingCallerIsFirstFoundActive() {
        String alice = ShopClient.tokenOf(shop.get("p2", "alice", null).expectStatus().isOk());
        assertThat(ShopClient.claimsOf(alice)).doesNotContain("\"jat\"");
        String bob = ShopClient.tokenOf(shop.get("p2", "bob", null));
        String again = ShopClient.tokenOf(shop.get("p2", "bob", bob));
        assertThat(jat(again)).isEqualTo(jat(bob));

        shop.order("p2", "alice", alice).expectStatus().isCreated();
        String admitted = ShopClient.tokenOf(shop.get("p2", "bob", again).expectStatus().isOk());
        assertThat(ShopClient.claimsOf(admitted)).doesNotContain("\"jat\"");
        shop.get("p2", "bob", admitted).expectStatus().isOk().expectHeader().doesNotExist("Queue-Token");

        assertThat(meters.get("queuegate.wait").tags("product", "p2", "route", "products").timer().count())
                .isEqualTo(1);
    }

    @Test
    void everyDecisionIsTimedByRouteAndOutcome() {
        shop.get("p3", "alice", null).expectStatus().isOk();
        shop.get("p3", "bob", null).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);

        assertThat(meters.get("queuegate.decision").tags("route", "products", "outcome", "active").timer().count())
                .isPositive();
        assertThat(meters.get("queuegate.decision").tags("route", "products", "outcome", "waiting").timer().count())
                .isPositive();
    }

    @Test
    void rejectionsAreCountedByContractErrorCode() {
        double before = count("queuegate.rejections", "route", "products", "error", "invalid_token");
        shop.get("p4", "alice", "not-a-token").expectStatus().isUnauthorized();
        assertThat(count("queuegate.rejections", "route", "products", "error", "invalid_token")).isEqualTo(before + 1);
    }

    @Test
    void theGaugesFollowTheQueueInRedisWithoutACallPerScrape() {
        String alice = ShopClient.tokenOf(shop.get("p5", "alice", null).expectStatus().isOk());
        shop.get("p5", "bob", null);
        shop.get("p5", "carol", null);

        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(gauge("queuegate.waiting", "p5")).isEqualTo(2);
            assertThat(gauge("queuegate.active", "p5")).isEqualTo(1);
        });
        shop.order("p5", "alice", alice).expectStatus().isCreated();
        Awaitility.await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(gauge("queuegate.waiting", "p5")).isEqualTo(1));
    }

    @Test
    void theModeAndDrainingGaugesFollowWhatAnOperatorSet() {
        shop.get("p7", "alice", null).expectStatus().isOk();
        shop.get("p7", "bob", null).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(modes("p7")).containsExactly(1.0, 0.0, 0.0, 0.0);
            assertThat(gauge("queuegate.draining", "p7")).isZero();
        });

        shop.operate("p7", "{\"action\":\"drain\"}").expectStatus().isOk();
        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(modes("p7")).containsExactly(0.0, 0.0, 1.0, 0.0);
            assertThat(gauge("queuegate.draining", "p7")).isEqualTo(1);
        });
        assertThat(shop.prometheus())
                .contains("queuegate_mode{mode=\"queue-all\",product=\"p7\"} 1.0")
                .contains("queuegate_mode{mode=\"queue\",product=\"p7\"} 0.0")
                .contains("queuegate_draining{product=\"p7\"} 1.0");

        shop.operate("p7", "{\"action\":\"mode\",\"value\":\"closed\"}").expectStatus().isOk();
        shop.operate("p7", "{\"action\":\"undrain\"}").expectStatus().isOk();
        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(modes("p7")).containsExactly(0.0, 0.0, 0.0, 1.0);
            assertThat(gauge("queuegate.draining", "p7")).isZero();
        });

        shop.operate("p7", "{\"action\":\"resume\"}").expectStatus().isOk();
        Awaitility.await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(modes("p7")).containsExactly(1.0, 0.0, 0.0, 0.0));
    }

    @Test
    void prometheusScrapesTheSameMeters() {
        shop.get("p6", "alice", null).expectStatus().isOk();
        shop.get("p6", "bob", null);

        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(shop.prometheus())
                .contains("queuegate_joins_total{product=\"p6\",route=\"products\"} 2.0")
                .contains("queuegate_admissions_total{product=\"p6\",trigger=\"join\"} 1.0")
                .contains("queuegate_waiting{product=\"p6\"} 1.0")
                .contains("queuegate_active{product=\"p6\"} 1.0")
                .contains("queuegate_decision_seconds_bucket{")
                .contains("queuegate_decision_seconds_count{outcome=\"waiting\",route=\"products\"}"));
    }

    @Test
    void aFailOpenPassAndItsRedisFailureAreCounted() {
        redis.pause();
        try {
            shop.get("unchecked", "alice", null).expectStatus().isOk();
        }
        finally {
            redis.resume();
        }
        assertThat(count("queuegate.failopen.passes", "product", "unchecked", "route", "products")).isEqualTo(1);
        assertThat(count("queuegate.redis.failures", "product", "unchecked", "operation", "admission")).isEqualTo(1);
    }

    private static double count(String name, String... tags) {
        var counter = Search.in(meters).name(name).tags(tags).counter();
        return counter == null ? 0 : counter.count();
    }

    private static double gauge(String name, String productId) {
        var gauge = Search.in(meters).name(name).tag("product", productId).gauge();
        return gauge == null ? -1 : gauge.value();
    }

    /** The product's {@code queuegate.mode} series in the order queue, passthrough, queue-all, closed. */
    private static double[] modes(String productId) {
        return java.util.stream.Stream.of("queue", "passthrough", "queue-all", "closed")
                .mapToDouble(mode -> {
                    var gauge = Search.in(meters).name("queuegate.mode").tags("product", productId, "mode", mode).gauge();
                    return gauge == null ? -1 : gauge.value();
                })
                .toArray();
    }

    private static String jat(String token) {
        return ShopClient.claimsOf(token).replaceAll(".*\"jat\":([0-9]+).*", "$1");
    }
}
