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
    void aHolderWhoKeepsComingIsConfirmedAheadAndNeverWaitsForRedis() {
        TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        WebTestClient client = clockedGateway(clock, Map.of()).client().mutate()
                .responseTimeout(Duration.ofSeconds(2)).build();
        String alice = token(client.get().uri("/api/products/busy").header("X-User-Id", "alice").exchange());
        client.get().uri("/api/products/busy").header("X-User-Id", "alice").header("Queue-Token", alice)
                .exchange().expectStatus().isOk();
        // Her pass has a fifth of a second left: this request passes and has it confirmed.
        clock.advance(Duration.ofMillis(800));
        long before = scriptCalls();
        client.get().uri("/api/products/busy").header("X-User-Id", "alice").header("Queue-Token", alice)
                .exchange().expectStatus().isOk();
        awaitConfirmation(before);
        // Past the pass's first end, and Redis answers nobody: the confirmed pass lets her through.
        clock.advance(Duration.ofMillis(700));
        // (The pause ends by itself; the next test's flush waits for it.)
        fixture.redis().commands().clientPause(3_000);
        client.get().uri("/api/products/busy").header("X-User-Id", "alice").header("Queue-Token", alice)
                .exchange().expectStatus().isOk();
    }

    @Test
    void aConfirmationNeverPutsAHolderWhoseSessionEndedBackInLine() {
        TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        WebTestClient client = clockedGateway(clock, Map.of("queuegate.products.brief.session-ttl", "2s")).client();
        String alice = token(client.get().uri("/api/products/brief").header("X-User-Id", "alice").exchange());
        client.get().uri("/api/products/brief").header("X-User-Id", "alice").header("Queue-Token", alice)
                .exchange().expectStatus().isOk();
        // Kept confirmed while her two seconds last (each pass has a fifth of its second left).
        for (int step = 1; step <= 2; step++) {
            clock.advance(Duration.ofMillis(800));
            long before = scriptCalls();
            client.get().uri("/api/products/brief").header("X-User-Id", "alice").header("Queue-Token", alice)
                    .exchange().expectStatus().isOk();
            awaitConfirmation(before);
        }
        // Her session ended at 2 s; the pass she was given at 1.6 s still lets her through (the
        // documented bound) and is confirmed: Redis finds her session ended, and must not queue her.
        String tickets = fixture.redis().commands().get("qg:{brief}:seq");
        clock.advance(Duration.ofMillis(800));
        long before = scriptCalls();
        client.get().uri("/api/products/brief").header("X-User-Id", "alice").header("Queue-Token", alice)
                .exchange().expectStatus().isOk();
        awaitConfirmation(before);
        assertThat(fixture.redis().commands().get("qg:{brief}:seq")).as("tickets handed out").isEqualTo(tickets);
        Double sessionEnd = fixture.redis().commands().zscore("qg:{brief}:active", "alice");
        assertThat(sessionEnd == null || sessionEnd <= clock.millis()).as("her session is over, not renewed").isTrue();
        // Her pass ended with the answer: her next request is Redis's to decide.
        long beforeNext = scriptCalls();
        client.get().uri("/api/products/brief").header("X-User-Id", "alice").header("Queue-Token", alice)
                .exchange();
        assertThat(scriptCalls()).isGreaterThan(beforeNext);
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

    /** Waits until a script call beyond {@code before} has run, and its answer has had time to land. */
    private static void awaitConfirmation(long before) {
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> scriptCalls() > before);
        try {
            Thread.sleep(300);
        }
        catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
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
