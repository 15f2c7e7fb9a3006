package io.queuegate.admission;

import java.time.Duration;
import java.util.Map;

import io.queuegate.support.GatewayFixture;
import io.queuegate.support.ScriptCalls;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An active token holder's next requests within a second pass without a Redis round trip, and a
 * completion or leave made through any instance ends that at once on every instance.
 */
class ActiveCacheTest {

    /** The scripts a shopper's request can wait on; the instances' own timers call others. */
    private static final String[] REQUEST_SCRIPTS = { "join.lua", "pass.lua", "status.lua", "leave.lua" };

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of(
                    "max-active", "1",
                    "complete-on", "POST /api/products/{productId}/orders"))
            .instances(2);

    @Test
    void anActiveHolderPassesWithoutARoundTripForASecond() {
        ScriptCalls calls = ScriptCalls.on(fixture.redis());
        try {
            // Redis admits her during this request, and her pass is remembered from then on.
            long asked = System.nanoTime();
            String alice = token(client(0).get().uri("/api/products/42").header("X-User-Id", "alice").exchange());
            client(0).get().uri("/api/products/42").header("X-User-Id", "alice").header("Queue-Token", alice)
                    .exchange().expectStatus().isOk();
            calls.reset();
            for (int i = 0; i < 5; i++) {
                client(0).get().uri("/api/products/42").header("X-User-Id", "alice").header("Queue-Token", alice)
                        .exchange().expectStatus().isOk();
            }
            Duration since = Duration.ofNanos(System.nanoTime() - asked);
            // At most one check a second; on a machine quick enough for the five, none at all.
            assertThat(calls.of(REQUEST_SCRIPTS)).as("script calls of five requests in %s", since)
                    .isLessThanOrEqualTo(since.toSeconds());
        }
        finally {
            calls.stop();
        }
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

    private static WebTestClient client(int gateway) {
        return fixture.gateway(gateway).client();
    }

    private static String token(WebTestClient.ResponseSpec response) {
        return response.expectBody().returnResult().getResponseHeaders().getFirst("Queue-Token");
    }
}
