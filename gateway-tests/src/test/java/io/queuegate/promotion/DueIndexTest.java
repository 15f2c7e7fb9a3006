package io.queuegate.promotion;

import java.time.Duration;
import java.util.Map;

import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.store.QueueKeys;
import io.queuegate.store.DueIndex;
import io.queuegate.store.ProductRegistry;
import io.queuegate.store.script.RescheduleScript;
import io.queuegate.support.GatewayFixture;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The safety net's index of due products: a pass costs one script call per product with work
 * due (a session ended while people wait), not one per product with a queue.
 */
class DueIndexTest {

    private static final int PRODUCTS = 20;

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture
            .withQueue(Map.of("max-active", "1", "session-ttl", "2s", "promotion", "pubsub"))
            .with("queuegate.products.calm.session-ttl", "10m")
            // No pass runs on its own: the test runs them.
            .with("queuegate.scheduler.interval", "1h")
            .with("queuegate.safety-net.interval", "1h");

    @Test
    void aPassVisitsOnlyProductsWithWorkDue() {
        for (int p = 0; p < PRODUCTS; p++) {
            join("p" + p, "holder");
            join("p" + p, "first");
            join("p" + p, "second");
        }
        join("calm", "holder");
        join("calm", "waiter");
        join("alone", "holder");
        DueIndex due = fixture.gateway().bean(DueIndex.class);
        PromotionScheduler scheduler = fixture.gateway().bean(PromotionScheduler.class);
        fixture.gateway().bean(ProductRegistry.class).flush().then(due.flush()).block();
        RedisCommands<String, String> redis = fixture.redis().commands();
        assertThat(redis.zcard(QueueKeys.DUE)).as("products with waiters are marked; 'alone' has nobody waiting")
                .isEqualTo(PRODUCTS + 1);

        // First pass: everyone marked is looked at once, and told when it is next due.
        assertThat(scriptCalls(() -> scheduler.promoteDue("").block())).isEqualTo(PRODUCTS + 1);
        for (int p = 0; p < PRODUCTS; p++) {
            assertThat(redis.zscore(QueueKeys.DUE, "p" + p)).as("next due when the holder's session ends")
                    .isEqualTo(redis.zscore(QueueKeys.of("p" + p).active(), "holder"));
        }

        // Nothing is due now: a pass costs no script call at all.
        assertThat(scriptCalls(() -> scheduler.promoteDue("").block())).isZero();

        // The 2 s sessions end; the 10-minute one does not. One call per product that has work.
        double lastEnd = redis.zrangeWithScores(QueueKeys.DUE, 0, -1).stream()
                .filter(entry -> entry.getValue().startsWith("p"))
                .mapToDouble(io.lettuce.core.ScoredValue::getScore).max().orElseThrow();
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> System.currentTimeMillis() > lastEnd);
        long[] moved = new long[1];
        assertThat(scriptCalls(() -> moved[0] = scheduler.promoteDue("").block())).isEqualTo(PRODUCTS);
        assertThat(moved[0]).isEqualTo(PRODUCTS);
        for (int p = 0; p < PRODUCTS; p++) {
            assertThat(redis.zrange(QueueKeys.of("p" + p).active(), 0, -1)).containsExactly("first");
        }
        assertThat(redis.zrange(QueueKeys.of("calm").active(), 0, -1)).containsExactly("holder");
    }

    @Test
    void aProductWhoseLineEmptiedLeavesTheIndex() {
        join("brief", "holder");
        join("brief", "waiter");
        fixture.gateway().bean(DueIndex.class).flush().block();
        // The waiter's place goes behind the scripts' back (as if its keys had expired).
        fixture.redis().commands().del(QueueKeys.of("brief").sequence());
        fixture.gateway().bean(PromotionScheduler.class).promoteDue("").block();
        assertThat(fixture.redis().commands().zscore(QueueKeys.DUE, "brief")).isNull();
    }

    @Test
    void aMarkMadeDuringAPassIsNotLost() {
        join("busy", "holder");
        join("busy", "waiter");
        DueIndex due = fixture.gateway().bean(DueIndex.class);
        due.flush().block();
        double read = fixture.redis().commands().zscore(QueueKeys.DUE, "busy");
        // Between the pass's read and its write-back, another instance marks the product due.
        fixture.redis().commands().zadd(QueueKeys.DUE, read + 5, "busy");
        due.reschedule(java.util.List.of(new RescheduleScript.Entry("busy", read, 99999999999999L))).block();
        assertThat(fixture.redis().commands().zscore(QueueKeys.DUE, "busy")).isEqualTo(read + 5);
    }

    private long scriptCalls(Runnable pass) {
        RedisCommands<String, String> redis = fixture.redis().commands();
        long before = evalshaCalls(redis);
        pass.run();
        // Minus the one write-back of the pass's results, when there were any.
        long calls = evalshaCalls(redis) - before;
        return calls == 0 ? 0 : calls - 1;
    }

    private static long evalshaCalls(RedisCommands<String, String> redis) {
        for (String line : redis.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:")) {
                return Long.parseLong(line.replaceAll("^cmdstat_evalsha:calls=(\\d+),.*", "$1"));
            }
        }
        return 0;
    }

    private static void join(String product, String user) {
        fixture.client().get().uri("/api/products/" + product).header("X-User-Id", user).exchange()
                .expectBody().returnResult();
    }
}
