package io.queuegate.admission;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.Draw;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A drop as JSON clients live it, through a running gateway on a real Redis: shoppers join the
 * pre-queue with one request each, as curl would, and ask nothing more until the opening. The
 * gateway's own timed loop opens the sale. Whoever comes back within abandon-after of the opening
 * keeps the place drawn for them; whoever never comes back is dropped when promotion reaches
 * them, and operators see it counted (metric, audit log, the queues endpoint).
 * <p>
 * The sale's gateway starts in the test, with {@code opens-at} a few seconds after its start (see
 * {@code DropFlowTest}'s class comment for why); a gateway started first warms the JVM, so that
 * start takes about a second. On a machine too busy even for that, the sale is set up again, a
 * few seconds later, under another product id.
 */
@ExtendWith(OutputCaptureExtension.class)
class PreQueueOpeningTest {

    private static final Map<String, Object> QUEUE = Map.of(
            "max-active", "1",
            "session-ttl", "1m",
            "promotion", "pubsub",
            "complete-on", "POST /api/products/{productId}/orders",
            "abandon-after", "3s");

    /** How long before the opening the shoppers must have joined: abandon-after, its slack, a margin. */
    private static final Duration JOINED_BEFORE = Duration.ofSeconds(5);

    private static RedisProcess redis;
    private static WireMockServer backend;
    /** Closed only after the test: closing one disposes Reactor Netty's loops of every other. */
    private static final List<GatewayInstance> gateways = new ArrayList<>();

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        backend = Backend.start();
        gateways.add(GatewayInstance.start(GatewayInstance.defaults(redis, backend.baseUrl(), QUEUE)));
    }

    @AfterAll
    static void stop() {
        GatewayInstance.closeAll(gateways);
        backend.stop();
        redis.close();
    }

    @Test
    void preQueuedShoppersWhoNeverPolledKeepTheirPlacesWhenTheyComeBackAndWhoNeverDoesIsCounted(
            CapturedOutput output) {
        Sale sale = sale();
        String product = sale.product();
        Instant opensAt = sale.opensAt();
        WebTestClient client = sale.client();
        String path = "/api/products/" + product;

        List<String> users = List.of("ann", "ben", "cat", "dan");
        Map<String, String> tokens = new LinkedHashMap<>();
        for (String user : users) {
            DropFlowTest.Reply reply = DropFlowTest.call(client, path, user, null);
            assertThat(reply.status()).as(user).isEqualTo(429);
            assertThat((String) reply.json("$.status")).isEqualTo("PRE_QUEUE");
            // The answer says until when a shopper who does not ask again keeps the place.
            Instant comeBackBy = opensAt.plusSeconds(3);
            assertThat((String) reply.json("$.comeBackBy")).isEqualTo(comeBackBy.toString());
            assertThat(reply.headers().getFirst("Queue-Come-Back-By")).isEqualTo(comeBackBy.toString());
            assertThat((String) reply.json("$.message")).contains(opensAt.toString())
                    .contains("Come back by " + comeBackBy + " with your token, or your place goes to the next in line");
            tokens.put(user, reply.headers().getFirst("Queue-Token"));
        }
        assertThat(Instant.now()).as("joined well before the opening at " + opensAt)
                .isBefore(opensAt.minus(JOINED_BEFORE));

        // Nobody asks: the gateway's timed loop opens the sale, lets the first drawn in and keeps
        // everyone else's place.
        await("the opening at " + opensAt).atMost(Duration.between(Instant.now(), opensAt).plusSeconds(2))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> DropFlowTest.call(client, "/actuator/queues/" + product, null, null).body()
                        .contains("\"opening\":{"));
        DropFlowTest.Reply opened = DropFlowTest.call(client, "/actuator/queues/" + product, null, null);
        assertThat(((Number) opened.json("$.active")).intValue()).as(opened.body()).isEqualTo(1);
        assertThat(((Number) opened.json("$.waiting")).intValue()).as(opened.body()).isEqualTo(3);
        assertThat(((Number) opened.json("$.abandoned")).intValue()).as(opened.body()).isZero();
        List<String> drawn = Draw.order(opened.json("$.opening.seed"), users);

        // The second and third drawn come back a second after the opening and keep asking, as
        // Retry-After says; the last drawn never comes back.
        await("a second after the opening").atMost(Duration.between(Instant.now(), opensAt).plusSeconds(3))
                .pollInterval(Duration.ofMillis(50)).until(() -> Instant.now().isAfter(opensAt.plusSeconds(1)));
        for (int i = 1; i <= 2; i++) {
            status(client, product, drawn.get(i), tokens.get(drawn.get(i))).jsonPath("$.status").isEqualTo("WAITING")
                    .jsonPath("$.rank").isEqualTo(i);
        }
        await("asking every half second until 4.5 s after the opening").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(500)).until(() -> {
                    for (int i = 1; i <= 2; i++) {
                        assertThat(DropFlowTest.call(client, path, drawn.get(i), tokens.get(drawn.get(i))).status())
                                .isEqualTo(429);
                    }
                    return !Instant.now().isBefore(opensAt.plusMillis(4_500));
                });

        // Each order frees the place for the next who came back; who never did is passed over.
        for (int i = 0; i <= 2; i++) {
            String user = drawn.get(i);
            await().atMost(Duration.ofSeconds(2)).until(() ->
                    DropFlowTest.call(client, path, user, tokens.get(user)).status() == 200);
            client.post().uri(path + "/orders").header("X-User-Id", user)
                    .header("Queue-Token", tokens.get(user)).exchange().expectStatus().isCreated();
        }
        // Dropped by the last completion's fill; the instance answers status from its view of the
        // line, which it reads again on the release that completion announced (and twice a second).
        await("the view of the line after the drop").atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> status(client, product, drawn.get(3), tokens.get(drawn.get(3)))
                        .jsonPath("$.status").isEqualTo("NOT_FOUND"));
        DropFlowTest.Reply after = DropFlowTest.call(client, "/actuator/queues/" + product, null, null);
        assertThat(((Number) after.json("$.active")).intValue()).as(after.body()).isZero();
        assertThat(((Number) after.json("$.waiting")).intValue()).as(after.body()).isZero();
        assertThat(((Number) after.json("$.abandoned")).intValue()).as(after.body()).isEqualTo(1);
        assertThat(DropFlowTest.call(client, "/actuator/prometheus", null, null).body())
                .contains("queuegate_abandoned_total{product=\"" + product + "\"} 1.0");
        String audit = "abandoned product=" + product + " trigger=completion dropped=1";
        await().atMost(Duration.ofSeconds(2)).untilAsserted(() -> assertThat(output.getOut()).contains(audit));
    }

    /** A sale of its own product on a gateway of its own, opening a few seconds after that gateway started. */
    private record Sale(String product, Instant opensAt, WebTestClient client) {
    }

    private static Sale sale() {
        // Joins must be older than abandon-after (3 s, and a quarter of it for the seen bitmaps'
        // span) at the opening, as they would be an hour before a real one.
        for (int attempt = 1; attempt <= 3; attempt++) {
            // A warm start takes a second or two, and several on a machine busy with other work.
            Instant opensAt = Instant.now().truncatedTo(ChronoUnit.SECONDS).plus(JOINED_BEFORE).plusSeconds(12);
            String product = "drop-" + attempt;
            Map<String, Object> properties = GatewayInstance.defaults(redis, backend.baseUrl(), QUEUE);
            properties.put("queuegate.products." + product + ".opens-at", opensAt);
            properties.put("management.endpoints.web.exposure.include", "health,queues,prometheus");
            properties.put("logging.level.io.queuegate.audit", "INFO");
            GatewayInstance gateway = GatewayInstance.start(properties);
            gateways.add(gateway);
            if (Instant.now().isBefore(opensAt.minus(JOINED_BEFORE).minusSeconds(2))) {
                return new Sale(product, opensAt, gateway.client());
            }
        }
        throw new AssertionError("no gateway started in time for its sale's opening");
    }

    private static WebTestClient.BodyContentSpec status(WebTestClient client, String product, String user,
            String token) {
        return client.get().uri("/queue/" + product + "/status").header("X-User-Id", user).header("Queue-Token", token)
                .exchange().expectStatus().isOk().expectBody();
    }
}
