package io.queuegate.admission;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.queuegate.support.GatewayFixture;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.TestClock;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An active token holder's next requests within a second pass without a Redis round trip, a
 * holder who keeps coming is confirmed in Redis ahead of time without waiting for it, and a
 * completion or leave made through any instance ends that at once on every instance.
 */
class ActiveCacheTest {

    private static final Map<String, Object> QUEUE = Map.of(
            "max-active", "1",
            "complete-on", "POST /api/products/{productId}/orders");

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(QUEUE).instances(2);

    /**
     * Gateways on a clock of the test's, closed after the last test: closing a gateway disposes
     * Reactor Netty's JVM-wide event loops, and with them the fixture's servers.
     */
    private static final List<GatewayInstance> clocked = new CopyOnWriteArrayList<>();

    private static final List<TestClock> clocks = new CopyOnWriteArrayList<>();

    @AfterEach
    void releaseClocks() {
        // The clocked gateways' loops go on over the shared Redis: on real time from now.
        clocks.forEach(TestClock::release);
    }

    @AfterAll
    static void closeClocked() {
        GatewayInstance.closeAll(clocked);
    }

    @Test
    void anActiveHolderPassesWithoutARoundTripForASecond() {
        String alice = token(client(0).get().uri("/api/products/42").header("X-User-Id", "alice").exchange());
        client(0).get().uri("/api/products/42").header("X-User-Id", "alice").header("Queue-Token", alice)
                .exchange().expectStatus().isOk();
        long before = scriptCalls();
        for (int i = 0; i < 5; i++) {
            client(0).get().uri("/api/products/42").header("X-User-Id", "alice").header("Queue-Token", alice)
                    .exchange().expectStatus().isOk();
        }
        assertThat(scriptCalls()).isEqualTo(before);
    }

    @Test
    void aHolderWhoKeepsComingIsConfirmedAheadAndDoesNotWaitForRedis() {
        TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        GatewayInstance gateway = clockedGateway(clock, Map.of());
        WebTestClient client = gateway.client().mutate().responseTimeout(Duration.ofSeconds(1)).build();
        String alice = token(client.get().uri("/api/products/busy").header("X-User-Id", "alice").exchange());
        pass(client, "busy", "alice", alice);
        // Her pass has a fifth of a second left: this request passes and has it confirmed.
        clock.advance(Duration.ofMillis(800));
        pass(client, "busy", "alice", alice);
        awaitAnswer(gateway, "busy", "alice");
        // Past the pass's first end, and Redis answers nobody for longer than the client waits:
        // the confirmed pass lets her through. (The pause ends by itself; the next test's flush
        // waits for it.)
        clock.advance(Duration.ofMillis(700));
        fixture.redis().commands().clientPause(1_500);
        pass(client, "busy", "alice", alice);
    }

    @Test
    void aConfirmationEndsThePassOfASessionEndedUnheardAndNeverPutsItsHolderBackInLine() {
        TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        GatewayInstance gateway = clockedGateway(clock, Map.of("queuegate.products.gone.max-active", "2"));
        WebTestClient client = gateway.client();
        String alice = token(client.get().uri("/api/products/gone").header("X-User-Id", "alice").exchange());
        String bob = token(client.get().uri("/api/products/gone").header("X-User-Id", "bob").exchange());
        // Alice's session ends in Redis, and this instance does not hear of it (a release lost).
        fixture.redis().commands().zrem("qg:{gone}:active", "alice");
        String tickets = fixture.redis().commands().get("qg:{gone}:seq");

        clock.advance(Duration.ofMillis(800));
        pass(client, "gone", "alice", alice);
        pass(client, "gone", "bob", bob);
        awaitAnswer(gateway, "gone", "alice");
        awaitAnswer(gateway, "gone", "bob");

        // Her answer ended her pass and made her no place; his renewed his.
        assertThat(fixture.redis().commands().get("qg:{gone}:seq")).as("tickets handed out").isEqualTo(tickets);
        assertThat(fixture.redis().commands().zscore("qg:{gone}:active", "alice")).isNull();
        clock.advance(Duration.ofMillis(400));
        assertThat(pass(client, "gone", "bob", bob)).as("his pass still holds: no new token").isNull();
        assertThat(pass(client, "gone", "alice", alice)).as("Redis decides her request, and signs a new token")
                .isNotNull();
    }

    @Test
    void aConfirmedPassEndsWithItsSession() {
        TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        GatewayInstance gateway = clockedGateway(clock, Map.of("queuegate.products.brief.session-ttl", "2s"));
        WebTestClient client = gateway.client();
        String alice = token(client.get().uri("/api/products/brief").header("X-User-Id", "alice").exchange());
        // Confirmed at 0.8 s (until 1.8 s) and at 1.6 s: until her session's end at 2 s, not 2.6 s.
        for (int step = 1; step <= 2; step++) {
            clock.advance(Duration.ofMillis(800));
            assertThat(pass(client, "brief", "alice", alice)).isNull();
            awaitAnswer(gateway, "brief", "alice");
        }
        clock.advance(Duration.ofMillis(450));
        assertThat(pass(client, "brief", "alice", alice)).as("past her session's end, Redis decides").isNotNull();
    }

    @Test
    void aCompletionOnOneInstanceEndsThePassOnEveryInstance() {
        String alice = token(client(0).get().uri("/api/products/42").header("X-User-Id", "alice").exchange());
        String bob = token(client(0).get().uri("/api/products/42").header("X-User-Id", "bob").exchange());
        client(1).get().uri("/api/products/42").header("X-User-Id", "alice").header("Queue-Token", alice)
                .exchange().expectStatus().isOk();
        // alice completes through instance 0; instance 1 had her as active a moment ago.
        client(0).post().uri("/api/products/42/orders").header("X-User-Id", "alice").header("Queue-Token", alice)
                .exchange().expectStatus().isCreated();
        Awaitility.await().atMost(Duration.ofMillis(500)).untilAsserted(() ->
                client(1).get().uri("/api/products/42").header("X-User-Id", "alice").header("Queue-Token", alice)
                        .exchange().expectStatus().isEqualTo(429));
        client(1).get().uri("/api/products/42").header("X-User-Id", "bob").header("Queue-Token", bob)
                .exchange().expectStatus().isOk();
    }

    private static GatewayInstance clockedGateway(TestClock clock, Map<String, Object> extra) {
        Map<String, Object> properties = GatewayInstance.defaults(fixture.redis(), fixture.backend().baseUrl(), QUEUE);
        properties.putAll(extra);
        clocks.add(clock);
        GatewayInstance gateway = GatewayInstance.start(properties, clock);
        clocked.add(gateway);
        return gateway;
    }

    /** A request of the holder that passes; the new token it brings back, or null when none. */
    private static String pass(WebTestClient client, String product, String user, String token) {
        return client.get().uri("/api/products/" + product).header("X-User-Id", user).header("Queue-Token", token)
                .exchange().expectStatus().isOk().expectBody().returnResult().getResponseHeaders()
                .getFirst("Queue-Token");
    }

    /** Waits until Redis has answered the confirmation of the user's pass that a request asked for. */
    private static void awaitAnswer(GatewayInstance gateway, String product, String user) {
        ActiveCache cache = gateway.bean(ActiveCache.class);
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !cache.confirming(product, user));
    }

    private static WebTestClient client(int gateway) {
        return fixture.gateway(gateway).client();
    }

    private static String token(WebTestClient.ResponseSpec response) {
        return response.expectBody().returnResult().getResponseHeaders().getFirst("Queue-Token");
    }

    private static long scriptCalls() {
        String stats = fixture.redis().commands().info("commandstats");
        return stats.lines().filter(line -> line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:"))
                .mapToLong(line -> Long.parseLong(line.replaceAll("^[^:]+:calls=(\\d+),.*", "$1")))
                .sum();
    }
}
