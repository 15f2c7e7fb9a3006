package io.queuegate.admission;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.queuegate.support.GatewayFixture;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis killed with SIGKILL in the middle of a sale and started again empty, as a Redis without
 * persistence comes back after a crash, with shoppers admitted and waiting through two gateways.
 * They come back in the worst orders (back to front, newcomers in between, some never): every
 * returning shopper keeps a rank no worse than before, in the line's order; newcomers stand behind
 * them; the admitted keep their sessions, and the shop never has more than max-active in checkout
 * at once; a purchase made before the loss is not made again.
 */
class RedisLossTest {

    private static final int MAX_ACTIVE = 3;

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of(
                    "max-active", Integer.toString(MAX_ACTIVE),
                    "session-ttl", "10m",
                    "promotion", "pubsub",
                    "complete-on", "POST /api/products/{productId}/orders"))
            .instances(2);

    /** Who the shop has in checkout: forwarded, and not yet done ordering. */
    private final Set<String> inCheckout = new LinkedHashSet<>();

    @Test
    void afterAnEmptyRestartPlacesComeBackInOrderNewcomersStandBehindAndTheCapHolds() {
        // Before the loss: one shopper bought, three are in checkout, 21 wait in order.
        Reply buyer = get(0, "buyer", null);
        assertThat(buyer.status()).isEqualTo(200);
        assertThat(order(1, "buyer", buyer.token())).isEqualTo(201);
        Map<String, String> admitted = new LinkedHashMap<>();
        for (int i = 1; i <= MAX_ACTIVE; i++) {
            Reply reply = get(i % 2, "a" + i, null);
            assertThat(reply.status()).isEqualTo(200);
            admitted.put("a" + i, reply.token());
        }
        Map<String, String> tokens = new LinkedHashMap<>();
        Map<String, Long> ranks = new HashMap<>();
        for (int i = 1; i <= 21; i++) {
            Reply reply = get(i % 2, "w" + i, null);
            assertThat(reply.status()).isEqualTo(429);
            assertThat(reply.rank()).isEqualTo(i);
            tokens.put("w" + i, reply.token());
            ranks.put("w" + i, reply.rank());
        }
        // Each instance reads its view of the line while shoppers ask, which it remembers.
        for (int instance = 0; instance < 2; instance++) {
            int gateway = instance;
            Awaitility.await().atMost(Duration.ofSeconds(3)).until(() -> get(gateway, "w1", tokens.get("w1")).cookie() == null);
        }

        fixture.redis().kill();
        fixture.redis().restartEmpty();
        awaitAnswers();

        // Back to front; a newcomer after every fifth; w7 and w13 never come back.
        List<String> order = new ArrayList<>();
        for (int i = 21; i >= 1; i--) {
            if (i != 7 && i != 13) {
                order.add("w" + i);
            }
        }
        long lastReturningRank = 0;
        Map<String, Long> after = new HashMap<>();
        int newcomers = 0;
        for (int i = 0; i < order.size(); i++) {
            String user = order.get(i);
            Reply back = get(i % 2, user, tokens.get(user));
            assertThat(back.status()).as(user + " is still waiting").isEqualTo(429);
            assertThat(back.rank()).as(user + "'s rank after the loss, against " + ranks.get(user) + " before")
                    .isLessThanOrEqualTo(ranks.get(user));
            after.put(user, back.rank());
            lastReturningRank = Math.max(lastReturningRank, back.rank());
            if (i % 5 == 4) {
                Reply newcomer = get((i + 1) % 2, "n" + ++newcomers, null);
                assertThat(newcomer.status()).isEqualTo(429);
                assertThat(newcomer.rank()).as("a newcomer stands behind every place that may come back")
                        .isGreaterThan(21);
            }
            assertCapHolds();
        }
        List<String> byRankAfter = after.keySet().stream().sorted((x, y) -> Long.compare(after.get(x), after.get(y))).toList();
        List<String> byRankBefore = after.keySet().stream().sorted((x, y) -> Long.compare(ranks.get(x), ranks.get(y))).toList();
        assertThat(byRankAfter).as("the returning shoppers in the order of the line before the loss")
                .isEqualTo(byRankBefore);

        // The admitted: back in checkout, and nobody was let in beside them.
        for (Map.Entry<String, String> shopper : admitted.entrySet()) {
            assertThat(get(1, shopper.getKey(), shopper.getValue()).status()).as(shopper.getKey()).isEqualTo(200);
        }
        assertThat(get(0, "w1", tokens.get("w1")).status()).as("the cap holds: w1 still waits").isEqualTo(429);
        assertThat(get(1, "buyer", buyer.token()).status()).as("a purchase before the loss is not reopened")
                .isNotEqualTo(200);
        assertCapHolds();

        // A place frees: the first in line before the loss goes in, on either instance.
        assertThat(order(0, "a1", admitted.get("a1"))).isEqualTo(201);
        Awaitility.await().atMost(Duration.ofSeconds(3))
                .untilAsserted(() -> assertThat(get(1, "w1", tokens.get("w1")).status()).isEqualTo(200));
        assertThat(get(0, "w2", tokens.get("w2")).status()).isEqualTo(429);
        assertCapHolds();
    }

    private void assertCapHolds() {
        assertThat(inCheckout).as("shoppers the shop has in checkout at once").hasSizeLessThanOrEqualTo(MAX_ACTIVE);
    }

    /** Waits until both gateways answer again (Redis back and reconnected). */
    private void awaitAnswers() {
        for (int instance = 0; instance < 2; instance++) {
            WebTestClient client = fixture.gateway(instance).client();
            Awaitility.await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100))
                    .until(() -> client.get().uri("/actuator/health/readiness").exchange().returnResult(String.class)
                            .getStatus().value() == 200);
        }
    }

    private Reply get(int instance, String user, String token) {
        WebTestClient.RequestHeadersSpec<?> request = fixture.gateway(instance).client().get()
                .uri("/api/products/42").header("X-User-Id", user);
        if (token != null) {
            request = request.header("Queue-Token", token);
        }
        EntityExchangeResult<String> result = request.exchange().expectBody(String.class).returnResult();
        int status = result.getStatus().value();
        if (status == 200) {
            inCheckout.add(user);
        }
        String rank = result.getResponseHeaders().getFirst("Queue-Rank");
        String issued = result.getResponseHeaders().getFirst("Queue-Token");
        return new Reply(status, rank == null ? -1 : Long.parseLong(rank), issued != null ? issued : token,
                result.getResponseHeaders().getFirst("Set-Cookie"));
    }

    private int order(int instance, String user, String token) {
        int status = fixture.gateway(instance).client().post().uri("/api/products/42/orders").header("X-User-Id", user)
                .header("Queue-Token", token).exchange().returnResult(String.class).getStatus().value();
        if (status < 400) {
            inCheckout.remove(user);
        }
        return status;
    }

    private record Reply(int status, long rank, String token, String cookie) {
    }
}
