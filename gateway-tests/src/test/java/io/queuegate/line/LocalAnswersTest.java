package io.queuegate.line;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.queuegate.support.GatewayFixture;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.ScriptCalls;
import io.queuegate.support.Tokens;
import io.queuegate.token.WaitToken;
import io.queuegate.token.WaitTokenCodec;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.client.WebClient;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Shoppers in line answered from each instance's view of the line, on two instances and a real
 * Redis whose script calls are counted: no script call per poll or heartbeat, a rank at most a
 * second stale (too large by what happened in that second, never too small), nobody's place lost,
 * and an admitted shopper told so at once by the instance that admitted them.
 */
class LocalAnswersTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.shopQueue(1)
            .with("queuegate.page.heartbeat", "1s")
            .instances(2);

    private ScriptCalls calls;

    @BeforeEach
    void countScriptCalls() {
        calls = ScriptCalls.on(fixture.redis());
    }

    @AfterEach
    void stopCounting() {
        calls.stop();
    }

    @Test
    void aShopperInLineAsksAgainWithoutAScriptCallAndKeepsTheirToken() {
        join(0, "alice");
        String carol = join(0, "carol").token();
        // The first question of a product makes the instance read its view of the line.
        await().atMost(Duration.ofSeconds(2)).until(() -> poll(1, "carol", carol).cookie() == null);

        calls.reset();
        for (int i = 0; i < 50; i++) {
            Reply reply = poll(1, "carol", carol);
            assertThat(reply.status()).isEqualTo(429);
            assertThat(reply.rank()).isEqualTo(1);
            assertThat(reply.token()).as("the same token: it still says the same").isEqualTo(carol);
            assertThat(reply.cookie()).as("no cookie to set again").isNull();
        }
        assertThat(calls.of("join.lua", "status.lua")).as("script calls for 50 polls").isZero();
        // What answering from memory costs Redis: a view read twice a second, a batch of seen marks.
        assertThat(calls.of("view.lua", "seen.lua")).isLessThanOrEqualTo(10);
    }

    @Test
    void theShopperWhoseTurnCameIsToldSoAtOnceByTheInstanceThatAdmittedThem() {
        String alice = join(0, "alice").token();
        String bob = join(0, "bob").token();
        warmUp(0, "bob", bob);

        order(0, "alice", alice);

        Reply next = poll(0, "bob", bob);
        assertThat(next.status()).as("bob's very next request, on the instance that admitted him").isEqualTo(200);
    }

    @Test
    void theShopperWhoLeftIsToldSoAtOnceByTheInstanceTheyLeftThrough() {
        join(0, "alice");
        String bob = join(0, "bob").token();
        warmUp(0, "bob", bob);
        status(0, "bob", bob).jsonPath("$.status").isEqualTo("WAITING");

        fixture.gateway(0).client().delete().uri("/queue/42").header("X-User-Id", "bob").header("Queue-Token", bob)
                .exchange().expectStatus().isOk().expectBody().jsonPath("$.status").isEqualTo("LEFT");

        // The view read before the leave is still fresh: it would say bob waits first in line.
        status(0, "bob", bob).jsonPath("$.status").isEqualTo("NOT_FOUND");
    }

    @Test
    void rightAfterAdmissionsARankMayBeOldButNeverTooSmallAndIsExactWithinASecond() throws Exception {
        Map<String, String> tokens = new LinkedHashMap<>();
        String holder = join(0, "holder").token();
        List<String> line = new ArrayList<>();
        for (int i = 1; i <= 12; i++) {
            String user = "u" + i;
            Reply joined = join(0, user);
            assertThat(joined.rank()).isEqualTo(i);
            tokens.put(user, joined.token());
            line.add(user);
        }
        line.forEach(user -> warmUp(1, user, tokens.get(user)));

        // Five sessions end through instance 0 while instance 1 keeps answering everyone in line.
        AtomicInteger ordersStarted = new AtomicInteger();
        List<String> problems = new CopyOnWriteArrayList<>();
        Thread polling = new Thread(() -> {
            long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            while (System.nanoTime() < until) {
                for (int i = 5; i < line.size(); i++) {
                    String user = line.get(i);
                    int started = ordersStarted.get();
                    Reply reply = poll(1, user, tokens.get(user));
                    int truest = (i + 1) - started;
                    if (reply.status() != 429) {
                        problems.add(user + " lost their place: " + reply.status() + " " + reply.body());
                    }
                    else if (reply.rank() < truest) {
                        problems.add(user + " was told rank " + reply.rank() + " with at most " + started
                                + " admitted ahead: at least " + truest);
                    }
                }
            }
        });
        polling.start();
        String finishing = "holder";
        String finishingToken = holder;
        for (int i = 0; i < 5; i++) {
            ordersStarted.incrementAndGet();
            order(0, finishing, finishingToken);
            finishing = line.get(i);
            finishingToken = tokens.get(finishing);
        }
        polling.join();
        assertThat(problems).isEmpty();

        // Exact within a second: the five admitted are gone from every rank.
        org.awaitility.Awaitility.await().atMost(LineViews.MAX_AGE.plusMillis(500)).untilAsserted(() -> {
            for (int i = 5; i < line.size(); i++) {
                assertThat(poll(1, line.get(i), tokens.get(line.get(i))).rank()).as(line.get(i)).isEqualTo(i + 1 - 5);
            }
        });
    }

    @Test
    void aPlaceGivenUpAheadShowsWithinASecondAndNeverMakesARankTooSmall() {
        join(0, "alice");
        Map<String, String> tokens = new LinkedHashMap<>();
        for (String user : List.of("b", "c", "d", "e")) {
            tokens.put(user, join(0, user).token());
        }
        warmUp(1, "e", tokens.get("e"));

        fixture.gateway(0).client().delete().uri("/queue/42").header("X-User-Id", "c")
                .header("Queue-Token", tokens.get("c")).exchange().expectStatus().isOk();

        assertThat(poll(1, "e", tokens.get("e")).rank()).as("at once: the old rank or the new").isBetween(3L, 4L);
        await().atMost(LineViews.MAX_AGE.plusMillis(500))
                .untilAsserted(() -> assertThat(poll(1, "e", tokens.get("e")).rank()).isEqualTo(3));
        assertThat(poll(1, "d", tokens.get("d")).rank()).isEqualTo(2);
        assertThat(poll(1, "b", tokens.get("b")).rank()).isEqualTo(1);
    }

    @Test
    void aTokenOfThePreviousReleaseIsAnsweredByRedisAndSignedAgainWithItsTicket() {
        join(0, "alice");
        Reply carol = join(0, "carol");
        WaitTokenCodec codec = Tokens.codec(GatewayInstance.SECRET);
        // What 0.1 signed: a waiting token without a ticket.
        String previous = codec.issue("42", "carol", false, codec.now(), null);
        warmUp(1, "carol", carol.token());

        calls.reset();
        Reply answered = poll(1, "carol", previous);

        assertThat(answered.rank()).isEqualTo(1);
        assertThat(calls.of("join.lua")).isEqualTo(1);
        WaitToken signed = codec.verify(answered.token());
        assertThat(signed.ticket()).isEqualTo(codec.verify(carol.token()).ticket());
        assertThat(answered.cookie()).as("a new token, in the cookie too").isNotNull();
    }

    @Test
    void liveStreamsCostNoScriptCallPerHeartbeat() {
        join(0, "alice");
        Map<String, String> tokens = new LinkedHashMap<>();
        for (int i = 0; i < 10; i++) {
            tokens.put("s" + i, join(0, "s" + i).token());
        }
        warmUp(1, "s0", tokens.get("s0"));
        calls.reset();
        Map<String, List<ServerSentEvent<String>>> received = new LinkedHashMap<>();
        List<Disposable> streams = new ArrayList<>();
        tokens.forEach((user, token) -> {
            List<ServerSentEvent<String>> events = new CopyOnWriteArrayList<>();
            received.put(user, events);
            streams.add(events(1, user, token).subscribe(events::add));
        });
        try {
            // A heartbeat a second: each stream repeats its place at least three times.
            await().atMost(Duration.ofSeconds(6))
                    .until(() -> received.values().stream().allMatch(events -> events.size() >= 4));
        }
        finally {
            streams.forEach(Disposable::dispose);
        }
        assertThat(received.get("s3").get(0).data()).contains("\"rank\":4");
        assertThat(calls.of("status.lua", "join.lua")).as("script calls of 10 streams over 4 heartbeats").isZero();
    }

    // ---------------------------------------------------------------- helpers

    /** Asks until the instance answers from its view (no new cookie): the view of the line is read. */
    private static void warmUp(int instance, String user, String token) {
        await().atMost(Duration.ofSeconds(2)).until(() -> poll(instance, user, token).cookie() == null);
    }

    private static Reply join(int instance, String user) {
        return poll(instance, user, null);
    }

    private static Reply poll(int instance, String user, String token) {
        WebTestClient.RequestHeadersSpec<?> spec = fixture.gateway(instance).client().get().uri("/api/products/42")
                .header("X-User-Id", user);
        if (token != null) {
            spec = spec.header("Queue-Token", token);
        }
        EntityExchangeResult<byte[]> result = spec.exchange().expectBody().returnResult();
        HttpHeaders headers = result.getResponseHeaders();
        String rank = headers.getFirst("Queue-Rank");
        byte[] body = result.getResponseBody();
        String issued = headers.getFirst("Queue-Token");
        return new Reply(result.getStatus().value(), rank == null ? -1 : Long.parseLong(rank),
                issued != null ? issued : token, headers.getFirst(HttpHeaders.SET_COOKIE),
                body == null ? "" : new String(body, StandardCharsets.UTF_8));
    }

    private static WebTestClient.BodyContentSpec status(int instance, String user, String token) {
        return fixture.gateway(instance).client().get().uri("/queue/42/status").header("X-User-Id", user)
                .header("Queue-Token", token).exchange().expectStatus().isOk().expectBody();
    }

    private static void order(int instance, String user, String token) {
        fixture.gateway(instance).client().post().uri("/api/products/42/orders").header("X-User-Id", user)
                .header("Queue-Token", token).exchange().expectStatus().isCreated();
    }

    private static Flux<ServerSentEvent<String>> events(int instance, String user, String token) {
        return WebClient.create(fixture.gateway(instance).baseUrl()).get().uri("/queue/42/events")
                .accept(MediaType.TEXT_EVENT_STREAM).header("X-User-Id", user).header("Queue-Token", token)
                .retrieve().bodyToFlux(new ParameterizedTypeReference<ServerSentEvent<String>>() {
                });
    }

    private record Reply(int status, long rank, String token, String cookie, String body) {
    }
}
