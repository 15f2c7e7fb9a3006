package io.queuegate.admission;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.queuegate.support.GatewayFixture;
import io.queuegate.support.ScriptCalls;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.client.WebClient;

import reactor.core.publisher.Flux;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When a token holder's remembered pass runs out, the requests they send at once (a page and its
 * calls) ask Redis once between them, and only whether the session still holds (pass.lua): only a
 * pass Redis renewed lets the others through, what it does not confirm takes the long way
 * (join.lua), and a Redis that could not answer is not asked again at once.
 */
class PassCheckTest {

    private static final int AT_ONCE = 8;

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1"))
            .with("queuegate.active-cache-ttl", "300ms")
            .with("queuegate.redis.timeout", "400ms")
            // The same product behind a route that fails open.
            .withRoute("lenient", Map.of("predicates[0]", "Path=/lenient/api/products/{productId}",
                    "filters[0]", "StripPrefix=1", "metadata.queue.max-active", "1",
                    "metadata.queue.on-redis-failure", "open"))
            // Another product whose line drops those not seen for 3 s (a product's own rule: the
            // routes that can serve one product agree on the rules stored for it).
            .with("queuegate.products.43.abandon-after", "3s")
            .withRoute("abandoning", Map.of("predicates[0]", "Path=/abandoning/api/products/{productId}",
                    "filters[0]", "StripPrefix=1", "metadata.queue.max-active", "1"));

    @Test
    void requestsSentAtOnceAfterThePassRanOutAskRedisOnce() {
        String alice = admitted("alice");
        passRunsOut();
        long before = checksOfActiveUsers();

        List<Integer> statuses = atOnceWhileRedisIsPaused("alice", alice, 200);

        assertThat(statuses).hasSize(AT_ONCE).containsOnly(200);
        assertThat(checksOfActiveUsers() - before).isEqualTo(1);
    }

    @Test
    void whenRedisCannotAnswerTheOthersAreAnsweredWithoutAskingAgain() {
        String alice = admitted("alice");
        // One check first, so Redis knows pass.lua: the call the pause holds back then runs once it
        // ends, rather than coming back unknown to a gateway that has given up on it.
        passRunsOut();
        fixture.gateway().client().get().uri("/api/products/42").header("X-User-Id", "alice")
                .header("Queue-Token", alice).exchange().expectStatus().isOk();
        passRunsOut();
        long before = checksOfActiveUsers();

        // Longer than the gateway's Redis timeout: the first check fails; the others would each
        // wait out a timeout of their own.
        List<Integer> statuses = atOnceWhileRedisIsPaused("alice", alice, 1_000);

        assertThat(statuses).hasSize(AT_ONCE).containsOnly(503);
        // The failed call still runs once the pause ends, and nothing after it.
        Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(3))
                .until(() -> checksOfActiveUsers() - before == 1);
    }

    @Test
    void whenRedisCannotAnswerEachRequestGetsItsOwnRoutesFailureAnswer() {
        String alice = admitted("alice");
        passRunsOut();
        WebClient client = WebClient.create(fixture.gateway().baseUrl());
        fixture.redis().commands().clientPause(1_000);
        // Whichever comes first asks; what Redis's silence means is each route's own.
        List<String> answers = Flux.range(0, AT_ONCE)
                .flatMap(i -> {
                    String path = i % 2 == 0 ? "/api/products/42" : "/lenient/api/products/42";
                    return client.get().uri(path).header("X-User-Id", "alice").header("Queue-Token", alice)
                            .exchangeToMono(response -> response.releaseBody()
                                    .thenReturn(path + " " + response.statusCode().value()));
                }, AT_ONCE)
                .collectList()
                .block(Duration.ofSeconds(10));

        assertThat(answers).hasSize(AT_ONCE)
                .allMatch(answer -> answer.equals("/api/products/42 503") || answer.equals("/lenient/api/products/42 200"));
    }

    @Test
    void noneOfThemPassesWhenRedisSaysThePlaceIsGone() {
        String alice = admitted("alice");
        // Her place goes to someone else behind this instance's back: nothing announces it.
        fixture.redis().commands().zrem("qg:{42}:active", "alice");
        fixture.redis().commands().zadd("qg:{42}:active", System.currentTimeMillis() + 600_000, "mallory");
        passRunsOut();
        ScriptCalls calls = ScriptCalls.on(fixture.redis());
        try {
            List<Integer> statuses = atOnceWhileRedisIsPaused("alice", alice, 200);

            // She is in line behind mallory now, and every request heard so from Redis itself.
            assertThat(statuses).hasSize(AT_ONCE).containsOnly(429);
            assertThat(calls.usersJoined()).isGreaterThanOrEqualTo(AT_ONCE);
        }
        finally {
            calls.stop();
        }
    }

    @Test
    void theCheckOnlyAsksWhetherTheSessionHoldsAndTheNextRequestsPassOnItsAnswer() {
        String alice = admitted("alice");
        passRunsOut();
        ScriptCalls calls = ScriptCalls.on(fixture.redis());
        try {
            for (int i = 0; i < 3; i++) {
                fixture.gateway().client().get().uri("/api/products/42").header("X-User-Id", "alice")
                        .header("Queue-Token", alice).exchange().expectStatus().isOk();
            }

            // One pass.lua call and no join call: the pass it renewed serves the rest.
            assertThat(calls.of("pass.lua")).isEqualTo(1);
            assertThat(calls.of("join.lua")).isZero();
        }
        finally {
            calls.stop();
        }
    }

    @Test
    void aRoomClosedBehindTheInstancesBackTurnsTheHolderAwayAtTheCheck() {
        String alice = admitted("alice");
        // Not announced: only Redis knows.
        fixture.redis().commands().hset("qg:{42}:settings", "mode", "closed");
        try {
            passRunsOut();
            fixture.gateway().client().get().uri("/api/products/42").header("X-User-Id", "alice")
                    .header("Queue-Token", alice).exchange().expectStatus().isEqualTo(503)
                    .expectBody().jsonPath("$.error").isEqualTo("room_closed");
        }
        finally {
            fixture.redis().commands().hdel("qg:{42}:settings", "mode");
        }
    }

    @Test
    void aTokenThatNamesAnotherSessionsEndTakesTheLongWayAndIsSignedAgain() {
        String alice = admitted("alice");
        double end = fixture.redis().commands().zscore("qg:{42}:active", "alice");
        // Her session now ends later than her token says (as after a session reclaimed or renewed elsewhere).
        fixture.redis().commands().zadd("qg:{42}:active", end + 60_000, "alice");
        passRunsOut();
        ScriptCalls calls = ScriptCalls.on(fixture.redis());
        try {
            String signedAgain = fixture.gateway().client().get().uri("/api/products/42").header("X-User-Id", "alice")
                    .header("Queue-Token", alice).exchange().expectStatus().isOk().expectBody().returnResult()
                    .getResponseHeaders().getFirst("Queue-Token");

            assertThat(signedAgain).as("a token naming the session's real end").isNotNull().isNotEqualTo(alice);
            assertThat(calls.of("pass.lua")).isEqualTo(1);
            assertThat(calls.of("join.lua")).isEqualTo(1);
        }
        finally {
            calls.stop();
        }
    }

    @Test
    void anAdmittedShopperWhoBrowsesKeepsTheProductHeardFrom() {
        // carol waits behind dave, then closes her tab; only dave keeps browsing.
        String dave = fixture.gateway().client().get().uri("/abandoning/api/products/43").header("X-User-Id", "dave")
                .exchange().expectStatus().isOk().expectBody().returnResult().getResponseHeaders().getFirst("Queue-Token");
        fixture.gateway().client().get().uri("/abandoning/api/products/43").header("X-User-Id", "carol").exchange()
                .expectStatus().isEqualTo(429);
        // Longer than half abandon-after, a request every 100 ms: his pass runs out and is checked again and again.
        Awaitility.await().pollInterval(Duration.ofMillis(100)).during(Duration.ofMillis(3_500))
                .atMost(Duration.ofSeconds(10)).until(() -> {
                    fixture.gateway().client().get().uri("/abandoning/api/products/43").header("X-User-Id", "dave")
                            .header("Queue-Token", dave).exchange().expectStatus().isOk();
                    return true;
                });
        // His pass checks are someone asking about the product: no spell nobody asked about (which
        // reads as an outage, and would give carol's closed tab a whole abandon-after again).
        long heardAt = Long.parseLong(fixture.redis().commands().hget("qg:{43}:settings", "heard_at"));
        assertThat(System.currentTimeMillis() - heardAt).isLessThan(1_000);
    }

    /** Joins {@code user} (the only place is free, so the join admits and remembers the pass) and returns the token. */
    private static String admitted(String user) {
        return fixture.gateway().client().get().uri("/api/products/42").header("X-User-Id", user).exchange()
                .expectStatus().isOk().expectBody().returnResult().getResponseHeaders().getFirst("Queue-Token");
    }

    /** The ttl passes in real time: a fixture gateway runs on the system's clock. */
    private static void passRunsOut() {
        ActiveCache passes = fixture.gateway().bean(ActiveCache.class);
        Awaitility.await().atMost(Duration.ofSeconds(2)).until(() -> !passes.isActive("42", "alice"));
    }

    /**
     * Sends AT_ONCE requests of the holder while Redis holds every client back for {@code millis},
     * so all of them are in the gateway while the first one's question is out.
     */
    private static List<Integer> atOnceWhileRedisIsPaused(String user, String token, long millis) {
        WebClient client = WebClient.create(fixture.gateway().baseUrl());
        fixture.redis().commands().clientPause(millis);
        return Flux.range(0, AT_ONCE)
                .flatMap(i -> client.get().uri("/api/products/42").header("X-User-Id", user)
                        .header("Queue-Token", token).exchangeToMono(response -> response.releaseBody()
                                .thenReturn(response.statusCode().value())), AT_ONCE)
                .collectList()
                .block(Duration.ofSeconds(10));
    }

    /**
     * Look-ups in the active sets: join.lua and pass.lua each make one for all the users of a call
     * (join.lua one more for each later request of a user whose session the call wrote), so the
     * count grows with the calls Redis was asked.
     */
    private static long checksOfActiveUsers() {
        return commandCalls("zscore") + commandCalls("zmscore");
    }

    private static long commandCalls(String command) {
        String stats = fixture.redis().commands().info("commandstats");
        return stats.lines().filter(line -> line.startsWith("cmdstat_" + command + ":"))
                .mapToLong(line -> Long.parseLong(line.replaceAll("^[^:]+:calls=(\\d+),.*", "$1")))
                .sum();
    }
}
