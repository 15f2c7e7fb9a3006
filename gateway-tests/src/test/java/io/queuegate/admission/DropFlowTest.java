package io.queuegate.admission;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import com.jayway.jsonpath.JsonPath;
import io.queuegate.room.RoomMode;
import io.queuegate.store.TimedProducts;
import io.queuegate.support.Draw;
import io.queuegate.support.DrawRecipe;
import io.queuegate.support.GatewayFixture;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.ScriptCalls;
import io.queuegate.support.TestClock;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.client.WebClient;

import reactor.core.Disposable;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The drop features through running gateways on one real Redis, with WireMock as the shop:
 * the pre-queue before {@code opens-at} and its draw at opening, {@code closes-at}, the room
 * modes an operator switches on one instance and shoppers feel on the other,
 * {@code Queue-Release} from the backend, and {@code abandon-after}.
 * <p>
 * The timed scenarios (a sale that opens, a sale that closes while people wait, shoppers who stop
 * asking) run on gateways of their own, on the fixture's Redis and shop, whose clock the test
 * moves: the opening and the closing come when the test says, to the millisecond, and
 * abandon-after's seconds pass without being waited for. Only a live page's looks (once a real
 * second) are waited for.
 */
class DropFlowTest {

    private static final Map<String, Object> QUEUE = Map.of(
            "max-active", "1",
            "session-ttl", "1m",
            "promotion", "pubsub",
            "complete-on", "POST /api/products/{productId}/orders");

    /** A sale that does not open while this class runs: its pre-queue stays a pre-queue. */
    private static final Instant SOON = Instant.now().truncatedTo(ChronoUnit.SECONDS).plus(Duration.ofHours(1));

    private static final Instant LONG_AGO = Instant.parse("2020-01-01T00:00:00Z");

    /** What a browser sends: HTML first. */
    private static final String BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(QUEUE)
            .instances(2)
            .with("management.endpoints.web.exposure.include", "health,queues")
            .with("queuegate.page.heartbeat", "1s")
            .with("queuegate.products.soon.opens-at", SOON)
            .with("queuegate.products.ended.closes-at", LONG_AGO)
            .with("queuegate.products.hold.max-active", "3")
            .with("queuegate.products.idle.abandon-after", "3s");

    private static WebTestClient a;
    private static WebTestClient b;

    /**
     * Gateways started by the timed tests. Closed only after the last test: closing a gateway
     * disposes Reactor Netty's JVM-wide event loops, and with them every other gateway's server.
     */
    private static final List<GatewayInstance> extras = new CopyOnWriteArrayList<>();

    /** The extra gateways' clocks, each given back to real time when its test ends. */
    private static final List<TestClock> clocks = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void shop() {
        a = fixture.gateway(0).client();
        b = fixture.gateway(1).client();
        // Two pages of the shop that end the session themselves, one of them failing.
        fixture.backend().stubFor(get(urlPathMatching("/api/products/[^/]+/done"))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withHeader("Queue-Release", "true").withBody("{\"thanks\":\"bye\"}")));
        fixture.backend().stubFor(get(urlPathMatching("/api/products/[^/]+/broken"))
                .willReturn(aResponse().withStatus(500).withHeader("Content-Type", "application/json")
                        .withHeader("Queue-Release", "TRUE").withBody("{\"error\":\"boom\"}")));
    }

    /**
     * An extra gateway runs until the class ends, and its loops go on over every product of the
     * shared Redis: on real time from now, not at an instant the next tests have left or not reached.
     */
    @AfterEach
    void releaseClocks() {
        clocks.forEach(TestClock::release);
    }

    @AfterAll
    static void closeExtras() {
        GatewayInstance.closeAll(extras);
    }

    // ---------------------------------------------------------------- opens-at: the pre-queue

    @Test
    void beforeOpeningEveryoneWaitsInThePreQueueWithoutARankEvenWithFreePlaces() {
        // max-active 1 and nobody active: without opens-at, alice would be let in at once.
        Reply alice = call(b, "/api/products/soon", "alice", null);
        assertThat(alice.status).isEqualTo(429);
        assertThat(alice.headers.containsHeader("Queue-Rank")).isFalse();
        assertThat(alice.headers.getContentType()).isEqualTo(MediaType.APPLICATION_JSON);
        long retryAfter = Long.parseLong(alice.headers.getFirst(HttpHeaders.RETRY_AFTER));
        // an hour before opening: as late as the cap (20 s, and a third of the default abandon-after)
        assertThat(retryAfter).isEqualTo(20);
        assertThat(alice.body).contains("\"rank\":null");
        assertThat((String) alice.json("$.status")).isEqualTo("PRE_QUEUE");
        assertThat((String) alice.json("$.productId")).isEqualTo("soon");
        assertThat((String) alice.json("$.userId")).isEqualTo("alice");
        assertThat((String) alice.json("$.opensAt")).isEqualTo(SOON.toString());
        assertThat(((Number) alice.json("$.preQueued")).longValue()).isEqualTo(1);
        assertThat(((Number) alice.json("$.retryAfterSeconds")).longValue()).isEqualTo(retryAfter);
        // No need to ask before the opening; back within abandon-after of it (default 60 s) keeps the place.
        assertThat((String) alice.json("$.comeBackBy")).isEqualTo(SOON.plusSeconds(60).toString());
        assertThat(alice.headers.getFirst("Queue-Come-Back-By")).isEqualTo(SOON.plusSeconds(60).toString());
        String aliceToken = alice.headers.getFirst("Queue-Token");
        assertThat(aliceToken).isNotBlank();
        assertThat((String) alice.json("$.token")).isEqualTo(aliceToken);

        // The count is the pre-queue's size, seen alike through either instance; asking again
        // does not count twice.
        Reply bob = call(a, "/api/products/soon", "bob", null);
        assertThat(bob.status).isEqualTo(429);
        assertThat(((Number) bob.json("$.preQueued")).longValue()).isEqualTo(2);
        Reply aliceAgain = call(a, "/api/products/soon", "alice", aliceToken);
        assertThat(aliceAgain.status).isEqualTo(429);
        assertThat((String) aliceAgain.json("$.status")).isEqualTo("PRE_QUEUE");
        assertThat(((Number) aliceAgain.json("$.preQueued")).longValue()).isEqualTo(2);
        assertThat(aliceAgain.headers.containsHeader("Queue-Rank")).isFalse();

        b.get().uri("/queue/soon/status").header("X-User-Id", "alice").header("Queue-Token", aliceToken)
                .exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.status").isEqualTo("PRE_QUEUE")
                .jsonPath("$.opensAt").isEqualTo(SOON.toString())
                .jsonPath("$.rank").doesNotExist()
                .jsonPath("$.retryAfterSeconds").isEqualTo(20);
        a.get().uri("/actuator/queues/soon").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.waiting").isEqualTo(2)
                .jsonPath("$.active").isEqualTo(0)
                .jsonPath("$.opening").isEmpty();
        fixture.backend().verify(0, getRequestedFor(urlPathEqualTo("/api/products/soon")));
    }

    @Test
    void aBrowserInThePreQueueGetsTheWaitingPageWithThePreQueueText() {
        EntityExchangeResult<String> page = a.get().uri("/api/products/soon")
                .header("X-User-Id", "carol").header("Accept", BROWSER).header("Accept-Language", "en")
                .exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().contentTypeCompatibleWith(MediaType.TEXT_HTML)
                .expectHeader().doesNotExist("Queue-Rank")
                .expectHeader().valueEquals("Retry-After", "20")
                .expectHeader().exists("Queue-Token")
                .expectBody(String.class).returnResult();
        String html = page.getResponseBody();
        // queuegate.page.pre-queue with the product, and the opening in UTC for a page without JavaScript
        assertThat(html).contains("Sales of soon have not opened yet.")
                .contains("Everyone who arrives before the opening is given a place in line by a fair draw")
                .contains("Opens on ").contains(" (UTC).")
                .contains("data-opens=\"" + SOON + "\"")
                .contains("data-rank=\"\"")
                .contains("data-retry=\"20\"")
                .doesNotContain("{{");
        assertThat(html).containsPattern("<section id=\"line\" aria-labelledby=\"rank-label\"\\s+hidden>");
        assertThat(page.getResponseHeaders().getFirst(HttpHeaders.SET_COOKIE)).startsWith("queue_token=")
                .containsIgnoringCase("HttpOnly");
        fixture.backend().verify(0, getRequestedFor(urlPathEqualTo("/api/products/soon")));
    }

    @Test
    void theDrawsCommitmentIsShownFromTheFirstAnswerOnAlikeByBothInstancesAndFromMemory() {
        Reply alice = call(a, "/api/products/soon", "alice", null);
        assertThat(alice.status).isEqualTo(429);
        String commitment = alice.json("$.seedCommitment");
        assertThat(commitment).as("in the pre-queue's very first answer").matches("[0-9a-f]{64}");
        String aliceToken = alice.headers.getFirst("Queue-Token");
        Reply bob = call(b, "/api/products/soon", "bob", null);
        assertThat((String) bob.json("$.seedCommitment")).as("the other instance, another join").isEqualTo(commitment);

        // Polls answered from the other instance's memory carry it too, without a script call.
        await().atMost(Duration.ofSeconds(2)).until(() -> call(b, "/api/products/soon", "alice", aliceToken)
                .headers.getFirst(HttpHeaders.SET_COOKIE) == null);
        ScriptCalls calls = ScriptCalls.on(fixture.redis());
        try {
            for (int i = 0; i < 10; i++) {
                Reply poll = call(b, "/api/products/soon", "alice", aliceToken);
                assertThat((String) poll.json("$.status")).isEqualTo("PRE_QUEUE");
                assertThat((String) poll.json("$.seedCommitment")).isEqualTo(commitment);
                status(b, "soon", "alice", aliceToken).jsonPath("$.seedCommitment").isEqualTo(commitment);
            }
            assertThat(calls.of("join.lua", "status.lua")).as("script calls for 10 polls and 10 questions").isZero();
        }
        finally {
            calls.stop();
        }
        status(a, "soon", "bob", bob.headers.getFirst("Queue-Token")).jsonPath("$.status").isEqualTo("PRE_QUEUE")
                .jsonPath("$.seedCommitment").isEqualTo(commitment);
        for (WebTestClient client : List.of(a, b)) {
            client.get().uri("/actuator/queues/soon").exchange().expectStatus().isOk().expectBody()
                    .jsonPath("$.seedCommitment").isEqualTo(commitment)
                    .jsonPath("$.opening").isEmpty();
        }

        // The page says what it is, in English and in Korean.
        String english = page(b, "soon", "carol", "en");
        assertThat(english).contains("<summary>How is this fair?</summary>")
                .contains("secret seed is fixed when the first shopper arrives and is published when the sale opens")
                .contains("data-commitment=\"" + commitment + "\"")
                .contains("<code class=\"commitment\" id=\"commitment\">" + commitment + "</code>")
                .containsPattern("<details id=\"draw\"\\s*>");
        assertThat(page(a, "soon", "dave", "ko")).contains("<summary>어떻게 공정한가요?</summary>")
                .contains("순번은 먼저 누른 순서가 아니라 무작위 추첨으로 정해집니다")
                .contains(">" + commitment + "</code>");

        // opens-at moved (a rolling change of the setting): the draw and its commitment stay.
        Instant later = SOON.plus(Duration.ofMinutes(10));
        WebTestClient moved = extraGateway(Map.of("queuegate.products.soon.opens-at", later)).client();
        Reply erin = call(moved, "/api/products/soon", "erin", null);
        assertThat((String) erin.json("$.opensAt")).isEqualTo(later.toString());
        assertThat((String) erin.json("$.seedCommitment")).isEqualTo(commitment);
        assertThat((String) call(a, "/api/products/soon", "frank", null).json("$.seedCommitment")).isEqualTo(commitment);
    }

    @Test
    void aProductWithoutADrawShowsNoCommitment() {
        assertThat(call(a, "/api/products/plain", "alice", null).status).isEqualTo(200);
        Reply bob = call(b, "/api/products/plain", "bob", null);
        assertThat(bob.status).isEqualTo(429);
        assertThat(bob.body).doesNotContain("seedCommitment");
        String token = bob.headers.getFirst("Queue-Token");
        String status = a.get().uri("/queue/plain/status").header("X-User-Id", "bob").header("Queue-Token", token)
                .exchange().expectStatus().isOk().expectBody(String.class).returnResult().getResponseBody();
        assertThat(status).contains("\"WAITING\"").doesNotContain("seedCommitment");
        assertThat(page(a, "plain", "carol", "en")).containsPattern("<details id=\"draw\"\\s+hidden>")
                .contains("data-commitment=\"\"");
        a.get().uri("/actuator/queues/plain").exchange().expectStatus().isOk().expectBody()
                .jsonPath("$.seedCommitment").doesNotExist();
    }

    @Test
    void atOpeningThePreQueueIsDrawnAndAdmittedInThatOrderWithoutAnyoneAsking() {
        // A minute ahead: the fixture's instances, on the real clock, run the safety net over
        // every product, and must not reach the opening while the test looks.
        TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        Instant opensAt = clock.instant().plusSeconds(60);
        WebTestClient client = extraGateway(Map.of(
                "queuegate.products.drop.opens-at", opensAt,
                "queuegate.products.drop.max-active", "2"), clock).client();

        List<String> users = List.of("ann", "ben", "cat", "dan", "eve");
        Map<String, String> tokens = new LinkedHashMap<>();
        Set<String> commitments = new HashSet<>();
        for (String user : users) {
            // The last joins five seconds before the opening.
            long untilOpening = user.equals("eve") ? 5 : 60;
            clock.set(opensAt.minusSeconds(untilOpening));
            Reply reply = call(client, "/api/products/drop", user, null);
            assertThat(reply.status).as(user).isEqualTo(429);
            assertThat(reply.headers.containsHeader("Queue-Rank")).isFalse();
            assertThat((String) reply.json("$.status")).isEqualTo("PRE_QUEUE");
            assertThat((String) reply.json("$.opensAt")).isEqualTo(opensAt.toString());
            assertThat(((Number) reply.json("$.preQueued")).intValue()).isEqualTo(tokens.size() + 1);
            // told to come back at the opening, not later, and not later than 20 s either
            assertThat(reply.headers.getFirst(HttpHeaders.RETRY_AFTER)).as(user)
                    .isEqualTo(Long.toString(Math.min(20, untilOpening)));
            tokens.put(user, reply.headers.getFirst("Queue-Token"));
            commitments.add(reply.json("$.seedCommitment"));
        }
        assertThat(commitments).as("one commitment, shown from the first answer on").hasSize(1);
        String commitment = commitments.iterator().next();
        client.get().uri("/actuator/queues/drop").exchange().expectStatus().isOk().expectBody()
                .jsonPath("$.waiting").isEqualTo(5).jsonPath("$.active").isEqualTo(0)
                .jsonPath("$.seedCommitment").isEqualTo(commitment)
                .jsonPath("$.opening").isEmpty();

        // Nobody asks: the gateway's own timed loop must open the sale, at opens-at and not a
        // millisecond before. Reading the queues endpoint changes nothing.
        clock.set(opensAt.minusMillis(1));
        await("nobody admitted a millisecond before opens-at, over several passes of the timed loop")
                .during(TimedProducts.PERIOD.multipliedBy(4)).atMost(TimedProducts.PERIOD.multipliedBy(8))
                .until(() -> ((Number) call(client, "/actuator/queues/drop", null, null).json("$.active")).intValue() == 0);
        clock.set(opensAt);
        await("the sale opens at " + opensAt).atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(50))
                .untilAsserted(() -> {
                    Reply view = call(client, "/actuator/queues/drop", null, null);
                    assertThat(((Number) view.json("$.active")).intValue()).as(view.body).isEqualTo(2);
                });

        Reply view = call(client, "/actuator/queues/drop", null, null);
        assertThat(((Number) view.json("$.waiting")).intValue()).isEqualTo(3);
        assertThat(((Number) view.json("$.opening.preQueued")).intValue()).isEqualTo(5);
        assertThat(Instant.parse((String) view.json("$.opening.opensAt"))).isEqualTo(opensAt);
        // Kept secret until now (no opening was shown above), the seed lets anyone recompute
        // the draw from the tickets, which the users took in the order they joined.
        String seed = view.json("$.opening.seed");
        assertThat(seed).matches("[0-9a-f]{64}");
        assertThat(Draw.commitment(seed)).as("sha256(seed) == the seedCommitment shown before").isEqualTo(commitment);
        assertThat((String) view.json("$.seedCommitment")).isEqualTo(commitment);
        assertThat(((Number) view.json("$.opening.firstTicket")).longValue()).isEqualTo(1);
        List<String> drawn = Draw.order(seed, users);
        if (DrawRecipe.available()) {
            // The buyers' recipe of docs/drops.md, as printed; users took tickets 1 to 5 in join order.
            assertThat(DrawRecipe.ticketsInOrder(seed, 1, users.size(), commitment).stream()
                    .map(ticket -> users.get((int) (ticket - 1))).toList()).isEqualTo(drawn);
        }

        for (int i = 0; i < drawn.size(); i++) {
            String user = drawn.get(i);
            WebTestClient.BodyContentSpec status = client.get().uri("/queue/drop/status")
                    .header("X-User-Id", user).header("Queue-Token", tokens.get(user))
                    .exchange().expectStatus().isOk().expectBody();
            if (i < 2) {
                status.jsonPath("$.status").isEqualTo("ACTIVE");
            }
            else {
                status.jsonPath("$.status").isEqualTo("WAITING").jsonPath("$.rank").isEqualTo(i - 1)
                        .jsonPath("$.seedCommitment").isEqualTo(commitment);
            }
        }
        // Token holders asking now: the first two drawn are forwarded, the rest wait in draw order.
        for (int i = 0; i < drawn.size(); i++) {
            String user = drawn.get(i);
            Reply reply = call(client, "/api/products/drop", user, tokens.get(user));
            if (i < 2) {
                assertThat(reply.status).as(user + ", drawn " + (i + 1)).isEqualTo(200);
                assertThat(reply.body).isEqualTo("{\"product\":\"ok\"}");
            }
            else {
                assertThat(reply.status).as(user + ", drawn " + (i + 1)).isEqualTo(429);
                assertThat((String) reply.json("$.status")).isEqualTo("WAITING");
                assertThat(reply.headers.getFirst("Queue-Rank")).isEqualTo(Integer.toString(i - 1));
            }
        }
        // Whoever comes after opening queues behind the whole pre-queue.
        Reply late = call(client, "/api/products/drop", "fay", null);
        assertThat(late.status).isEqualTo(429);
        assertThat(late.headers.getFirst("Queue-Rank")).isEqualTo("4");
        assertThat((String) late.json("$.status")).isEqualTo("WAITING");
        for (int i = 0; i < drawn.size(); i++) {
            fixture.backend().verify(i < 2 ? 1 : 0, getRequestedFor(urlPathEqualTo("/api/products/drop"))
                    .withHeader("X-User-Id", equalTo(drawn.get(i))));
        }
    }

    // ---------------------------------------------------------------- closes-at

    @Test
    void afterClosingNewcomersGet410() {
        Reply dave = call(a, "/api/products/ended", "dave", null);
        assertThat(dave.status).isEqualTo(410);
        assertThat(dave.headers.getContentType()).isEqualTo(MediaType.APPLICATION_JSON);
        assertThat(dave.headers.containsHeader("Queue-Token")).isFalse();
        assertThat(dave.headers.containsHeader(HttpHeaders.RETRY_AFTER)).as("trying again will not help").isFalse();
        assertThat((String) dave.json("$.error")).isEqualTo("sale_ended");
        assertThat((String) dave.json("$.message")).contains(LONG_AGO.toString());
        // POSTs too, on either instance
        b.post().uri("/api/products/ended/orders").header("X-User-Id", "erin").exchange()
                .expectStatus().isEqualTo(HttpStatus.GONE)
                .expectBody().jsonPath("$.error").isEqualTo("sale_ended");
        fixture.backend().verify(0, getRequestedFor(urlPathMatching("/api/products/ended.*")));
    }

    @Test
    void afterClosingABrowserGetsTheSaleEndedPage() {
        String html = b.get().uri("/api/products/ended")
                .header("X-User-Id", "dave").header("Accept", BROWSER).header("Accept-Language", "en")
                .exchange()
                .expectStatus().isEqualTo(HttpStatus.GONE)
                .expectHeader().contentTypeCompatibleWith(MediaType.TEXT_HTML)
                .expectHeader().doesNotExist("Retry-After")
                .expectBody(String.class).returnResult().getResponseBody();
        assertThat(html).contains("<title>This sale has ended</title>")
                .contains("<h1>This sale has ended</h1>")
                .contains("takes no new shoppers")
                .doesNotContain("{{");
        fixture.backend().verify(0, getRequestedFor(urlPathMatching("/api/products/ended.*")));
    }

    @Test
    void whenTheSaleClosesThoseInLineKeepTheirPlaceAndNewcomersAreTurnedAway() {
        TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        Instant closesAt = clock.instant().plusSeconds(10);
        WebTestClient client = extraGateway(Map.of("queuegate.products.lastcall.closes-at", closesAt), clock).client();
        String alice = tokenOf(call(client, "/api/products/lastcall", "alice", null), 200);
        String bob = tokenOf(call(client, "/api/products/lastcall", "bob", null), 429);
        clock.set(closesAt.minusMillis(1));
        Reply dora = call(client, "/api/products/lastcall", "dora", null);
        assertThat(dora.status).as("a millisecond before closes-at: " + dora.body).isEqualTo(429);
        assertThat(dora.headers.getFirst("Queue-Rank")).isEqualTo("2");

        clock.set(closesAt);
        Reply carol = call(client, "/api/products/lastcall", "carol", null);
        assertThat(carol.status).isEqualTo(410);
        assertThat((String) carol.json("$.error")).isEqualTo("sale_ended");
        // bob keeps his place, with his token or without it
        Reply bobPolls = call(client, "/api/products/lastcall", "bob", bob);
        assertThat(bobPolls.status).isEqualTo(429);
        assertThat(bobPolls.headers.getFirst("Queue-Rank")).isEqualTo("1");
        assertThat(call(client, "/api/products/lastcall", "bob", null).headers.getFirst("Queue-Rank"))
                .isEqualTo("1");
        // alice keeps her session, and finishing it lets bob in
        assertThat(call(client, "/api/products/lastcall", "alice", alice).status).isEqualTo(200);
        buy(client, "lastcall", "alice", alice);
        assertThat(call(client, "/api/products/lastcall", "bob", bob).status).isEqualTo(200);
        // a finished session is over: after closing it cannot start again
        Reply aliceAgain = call(client, "/api/products/lastcall", "alice", alice);
        assertThat(aliceAgain.status).isEqualTo(410);
        fixture.backend().verify(0, getRequestedFor(urlPathEqualTo("/api/products/lastcall"))
                .withHeader("X-User-Id", equalTo("carol")));
    }

    // ---------------------------------------------------------------- room modes

    @Test
    void passthroughThroughOneInstanceForwardsEveryoneAtTheOtherAndCountsThemActive() {
        call(b, "/api/products/pass", "alice", null);
        String bob = tokenOf(call(b, "/api/products/pass", "bob", null), 429);

        operate(a, "pass", "{\"action\":\"mode\",\"value\":\"passthrough\"}")
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.queue.mode").isEqualTo("passthrough")
                .jsonPath("$.promoted").isEqualTo(1);
        AtomicInteger newcomers = new AtomicInteger();
        await("passthrough reaches the other instance").atMost(Duration.ofSeconds(1))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> call(b, "/api/products/pass", "carol-" + newcomers.incrementAndGet(), null).status == 200);
        assertThat(call(b, "/api/products/pass", "bob", bob).status).isEqualTo(200);
        for (String user : List.of("dave", "erin", "finn")) {
            Reply reply = call(b, "/api/products/pass", user, null);
            assertThat(reply.status).as(user).isEqualTo(200);
            assertThat(reply.body).isEqualTo("{\"product\":\"ok\"}");
        }

        // max-active is 1, yet all of them hold a place: alice, bob, the carols, dave, erin and finn
        b.get().uri("/actuator/queues/pass").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.mode").isEqualTo("passthrough")
                .jsonPath("$.capacity").isEqualTo(1)
                .jsonPath("$.waiting").isEqualTo(0)
                .jsonPath("$.active").isEqualTo(2 + newcomers.get() + 3);
        fixture.backend().verify(1, getRequestedFor(urlPathEqualTo("/api/products/pass"))
                .withHeader("X-User-Id", equalTo("finn")));
    }

    @Test
    void queueAllThroughOneInstanceMakesNewcomersWaitAtTheOtherDespiteFreePlaces() {
        // max-active 3 for this product; alice takes one place, two stay free
        String alice = tokenOf(call(b, "/api/products/hold", "alice", null), 200);

        operate(a, "hold", "{\"action\":\"mode\",\"value\":\"queue-all\"}")
                .expectStatus().isOk()
                .expectBody().jsonPath("$.queue.mode").isEqualTo("queue-all").jsonPath("$.promoted").isEqualTo(0);
        List<String> newcomers = new ArrayList<>();
        await("queue-all reaches the other instance").atMost(Duration.ofSeconds(1))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    String user = "bob-" + (newcomers.size() + 1);
                    newcomers.add(user);
                    return call(b, "/api/products/hold", user, null).status == 429;
                });
        String last = newcomers.get(newcomers.size() - 1);
        Reply waiting = call(b, "/api/products/hold", last, null);
        assertThat(waiting.status).isEqualTo(429);
        assertThat((String) waiting.json("$.status")).isEqualTo("WAITING");
        assertThat(waiting.headers.getFirst("Queue-Rank")).isEqualTo(Integer.toString(newcomers.size()));
        // those already in keep going
        assertThat(call(b, "/api/products/hold", "alice", alice).status).isEqualTo(200);

        b.get().uri("/actuator/queues/hold").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.mode").isEqualTo("queue-all")
                .jsonPath("$.capacity").isEqualTo(3)
                // no attempt was let in, not even one made before the switch showed
                .jsonPath("$.active").isEqualTo(1)
                .jsonPath("$.waiting").isEqualTo(newcomers.size());

        // Back to queue: the free places go to those who waited.
        operate(a, "hold", "{\"action\":\"mode\",\"value\":\"queue\"}")
                .expectStatus().isOk()
                .expectBody().jsonPath("$.queue.mode").isEqualTo("queue")
                .jsonPath("$.promoted").isEqualTo(Math.min(2, newcomers.size()));
        assertThat(call(b, "/api/products/hold", newcomers.get(0), null).status).isEqualTo(200);
    }

    @Test
    void closedThroughOneInstanceTurnsAwayEveryoneAtTheOtherEvenActiveTokenHolders() {
        String alice = tokenOf(call(b, "/api/products/shut", "alice", null), 200);
        String bob = tokenOf(call(b, "/api/products/shut", "bob", null), 429);
        // alice was just found active on b: b may remember that for up to a second
        assertThat(call(b, "/api/products/shut", "alice", alice).status).isEqualTo(200);

        operate(a, "shut", "{\"action\":\"mode\",\"value\":\"closed\"}")
                .expectStatus().isOk()
                .expectBody().jsonPath("$.queue.mode").isEqualTo("closed");
        await("closed reaches the other instance").atMost(Duration.ofSeconds(1))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> call(b, "/api/products/shut", "alice", alice).status == 503);
        // Once refused, refused: from here on nothing of this product reaches the shop.
        int forwardedWhenClosed = forwarded("shut");

        Reply aliceClosed = call(b, "/api/products/shut", "alice", alice);
        assertThat(aliceClosed.status).isEqualTo(503);
        // Rarely, but within a third of abandon-after (60 s by default): bob keeps his place by asking.
        assertThat(aliceClosed.headers.getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("20");
        assertThat((String) aliceClosed.json("$.error")).isEqualTo("room_closed");
        for (String[] caller : new String[][] { { "bob", bob }, { "carol", null } }) {
            Reply reply = call(b, "/api/products/shut", caller[0], caller[1]);
            assertThat(reply.status).as(caller[0]).isEqualTo(503);
            assertThat((String) reply.json("$.error")).isEqualTo("room_closed");
            assertThat(reply.headers.getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("20");
        }
        b.post().uri("/api/products/shut/orders").header("X-User-Id", "alice").header("Queue-Token", alice)
                .exchange().expectStatus().isEqualTo(HttpStatus.SERVICE_UNAVAILABLE)
                .expectBody().jsonPath("$.error").isEqualTo("room_closed");
        String html = b.get().uri("/api/products/shut").header("X-User-Id", "dave")
                .header("Accept", BROWSER).header("Accept-Language", "en").exchange()
                .expectStatus().isEqualTo(HttpStatus.SERVICE_UNAVAILABLE)
                .expectHeader().contentTypeCompatibleWith(MediaType.TEXT_HTML)
                .expectHeader().valueEquals("Retry-After", "20")
                .expectBody(String.class).returnResult().getResponseBody();
        assertThat(html).contains("<title>Closed for now</title>").contains("content=\"20\"");
        b.get().uri("/actuator/queues/shut").exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.mode").isEqualTo("closed").jsonPath("$.active").isEqualTo(1);

        assertThat(forwarded("shut")).isEqualTo(forwardedWhenClosed);
        // Reopened: alice's session outlived the closing, bob's place too.
        operate(a, "shut", "{\"action\":\"mode\",\"value\":\"queue\"}").expectStatus().isOk()
                .expectBody().jsonPath("$.queue.mode").isEqualTo("queue");
        assertThat(call(b, "/api/products/shut", "alice", alice).status).isEqualTo(200);
        Reply bobAgain = call(b, "/api/products/shut", "bob", bob);
        assertThat(bobAgain.status).isEqualTo(429);
        assertThat(bobAgain.headers.getFirst("Queue-Rank")).isEqualTo("1");
    }

    @Test
    void anUnknownModeIsRefusedAndChangesNothing() {
        call(b, "/api/products/typo", "alice", null);
        operate(a, "typo", "{\"action\":\"mode\",\"value\":\"open\"}")
                .expectStatus().isBadRequest()
                .expectBody()
                .jsonPath("$.error").isEqualTo("invalid_value")
                .jsonPath("$.message").value(message -> assertThat((String) message)
                        .contains(Arrays.stream(RoomMode.values()).map(RoomMode::code).collect(Collectors.joining(", ")))
                        .contains("'open'"));
        operate(a, "typo", "{\"action\":\"mode\"}")
                .expectStatus().isBadRequest()
                .expectBody().jsonPath("$.error").isEqualTo("invalid_value");
        b.get().uri("/actuator/queues/typo").exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.mode").isEqualTo("queue").jsonPath("$.active").isEqualTo(1);
        assertThat(call(b, "/api/products/typo", "bob", null).status).isEqualTo(429);
    }

    // ---------------------------------------------------------------- Queue-Release

    @Test
    void aBackendReleaseHeaderEndsTheSessionOnAnyStatusAndNeverReachesTheClient() {
        // The shop really sends it: otherwise this test would prove nothing.
        WebTestClient.bindToServer().baseUrl(fixture.backend().baseUrl()).build()
                .get().uri("/api/products/rel/done").exchange()
                .expectHeader().valueEquals("Queue-Release", "true").expectBody().returnResult();

        String alice = tokenOf(call(a, "/api/products/rel", "alice", null), 200);
        String bob = tokenOf(call(a, "/api/products/rel", "bob", null), 429);
        String carol = tokenOf(call(a, "/api/products/rel", "carol", null), 429);
        // a page without the header changes nothing
        assertThat(call(a, "/api/products/rel", "alice", alice).status).isEqualTo(200);
        status(a, "rel", "alice", alice).jsonPath("$.status").isEqualTo("ACTIVE");

        Reply done = call(a, "/api/products/rel/done", "alice", alice);
        assertThat(done.status).isEqualTo(200);
        assertThat(done.body).isEqualTo("{\"thanks\":\"bye\"}");
        assertThat(done.headers.containsHeader("Queue-Release")).isFalse();
        status(a, "rel", "alice", alice).jsonPath("$.status").isEqualTo("NOT_FOUND");
        status(b, "rel", "bob", bob).jsonPath("$.status").isEqualTo("ACTIVE");
        status(b, "rel", "carol", carol).jsonPath("$.status").isEqualTo("WAITING").jsonPath("$.rank").isEqualTo(1);

        // On a failing answer as well.
        assertThat(call(b, "/api/products/rel", "bob", bob).status).isEqualTo(200);
        Reply broken = call(b, "/api/products/rel/broken", "bob", bob);
        assertThat(broken.status).isEqualTo(500);
        assertThat(broken.headers.containsHeader("Queue-Release")).isFalse();
        status(a, "rel", "bob", bob).jsonPath("$.status").isEqualTo("NOT_FOUND");
        status(a, "rel", "carol", carol).jsonPath("$.status").isEqualTo("ACTIVE");
        assertThat(call(b, "/api/products/rel", "carol", carol).status).isEqualTo(200);
        // a released session is over: the old token joins at the back
        Reply aliceAgain = call(a, "/api/products/rel", "alice", alice);
        assertThat(aliceAgain.status).isEqualTo(429);
        assertThat(aliceAgain.headers.getFirst("Queue-Rank")).isEqualTo("1");
    }

    // ---------------------------------------------------------------- abandon-after

    @Test
    void ofTwentyWaitingTheTenWhoKeepAskingGetTheNextTenPlacesAndNoClosedTabIsLetIn() {
        // stale: abandon-after 20s, max-active 1, on two gateways that share a clock the test moves.
        // Long enough that what Redis keeps of who asked (a seen bitmap lives abandon-after and half
        // again, in real time) outlasts the ten purchases below on a slow machine.
        TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        Map<String, Object> stale = Map.of("queuegate.products.stale.abandon-after", "20s");
        WebTestClient one = extraGateway(stale, clock).client();
        WebTestClient two = extraGateway(stale, clock).client();
        String path = "/api/products/stale";
        String holder = tokenOf(call(one, path, "holder", null), 200);
        Map<String, String> tokens = new LinkedHashMap<>();
        List<String> staying = new ArrayList<>();
        List<String> gone = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String user = (i % 2 == 0 ? "stays-" : "gone-") + i;
            Reply reply = call(i % 2 == 0 ? one : two, path, user, null);
            assertThat(reply.status).isEqualTo(429);
            // told to ask again well within abandon-after
            assertThat(reply.headers.getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
            tokens.put(user, reply.headers.getFirst("Queue-Token"));
            (i % 2 == 0 ? staying : gone).add(user);
        }

        // Ten ask again every five seconds, through both instances, for longer than abandon-after
        // and its slack (a quarter); ten closed the tab. The instances answer from their views of
        // the line and report who asked at their next flush. Each step is over when Redis heard the
        // product at the clock's new time: a product not heard of for half its abandon-after reads
        // as an outage, and gives everyone in line a whole abandon-after again.
        for (int step = 1; step <= 6; step++) {
            clock.advance(Duration.ofSeconds(5));
            for (int i = 0; i < staying.size(); i++) {
                String user = staying.get(i);
                Reply reply = call(i % 2 == 0 ? one : two, path, user, tokens.get(user));
                assertThat(reply.status).as("%s at step %d: %s", user, step, reply.body).isEqualTo(429);
            }
            String heardAt = Long.toString(clock.millis());
            await("step " + step + " heard in Redis").atMost(Duration.ofSeconds(3))
                    .until(() -> heardAt.equals(fixture.redis().commands().hget("qg:{stale}:settings", "heard_at")));
        }

        // Each place that frees goes to the next who kept asking, in join order.
        String finishing = "holder";
        String finishingToken = holder;
        for (String next : staying) {
            buy(one, "stale", finishing, finishingToken);
            assertThat(fixture.redis().commands().zrange("qg:{stale}:active", 0, -1))
                    .as("after %s finished", finishing).containsExactly(next);
            // The other instance may answer from its view of the line, at most a second stale.
            await().atMost(Duration.ofSeconds(2)).untilAsserted(() ->
                    status(two, "stale", next, tokens.get(next)).jsonPath("$.status").isEqualTo("ACTIVE"));
            finishing = next;
            finishingToken = tokens.get(next);
        }
        buy(one, "stale", finishing, finishingToken);
        assertThat(fixture.redis().commands().zcard("qg:{stale}:active")).as("no closed tab is let in").isZero();
        two.get().uri("/actuator/queues/stale").exchange().expectStatus().isOk().expectBody()
                .jsonPath("$.waiting").isEqualTo(0).jsonPath("$.active").isEqualTo(0);
        for (String user : gone) {
            status(one, "stale", user, tokens.get(user)).jsonPath("$.status").isEqualTo("NOT_FOUND");
        }
    }

    @Test
    void aShopperOnTheLivePageKeepsTheirPlaceWhileAClosedTabAheadLosesIt() throws Exception {
        // idle: abandon-after 3s, max-active 1. The live page asks nothing: its stream is all there is.
        String holder = tokenOf(call(a, "/api/products/idle", "holder", null), 200);
        tokenOf(call(a, "/api/products/idle", "closed-tab", null), 429);
        String live = tokenOf(call(a, "/api/products/idle", "live", null), 429);
        List<ServerSentEvent<String>> events = new CopyOnWriteArrayList<>();
        Disposable stream = WebClient.create(fixture.gateway(1).baseUrl()).get().uri("/queue/idle/events")
                .accept(MediaType.TEXT_EVENT_STREAM).header("X-User-Id", "live").header("Queue-Token", live)
                .retrieve().bodyToFlux(new ParameterizedTypeReference<ServerSentEvent<String>>() {
                }).subscribe(events::add);
        try {
            // Three abandon-afters with nothing but the open stream.
            await().during(Duration.ofSeconds(9)).atMost(Duration.ofSeconds(10)).until(() ->
                    !events.isEmpty() && events.stream().allMatch(event -> "status".equals(event.event())));
            buy(a, "idle", "holder", holder);

            await().atMost(Duration.ofSeconds(3)).untilAsserted(() ->
                    assertThat(events).extracting(ServerSentEvent::event).contains("active"));
            assertThat(fixture.redis().commands().zrange("qg:{idle}:active", 0, -1)).containsExactly("live");
        }
        finally {
            stream.dispose();
        }
    }

    /** The user buys, which ends their session. */
    private static void buy(WebTestClient client, String productId, String user, String token) {
        client.post().uri("/api/products/" + productId + "/orders").header("X-User-Id", user).header("Queue-Token", token)
                .exchange().expectStatus().isCreated().expectBody().returnResult();
    }

    // ---------------------------------------------------------------- helpers

    /**
     * Another gateway on the fixture's Redis and shop, with the fixture's route and these
     * properties, running until the class is done (see {@link #extras}).
     */
    private static GatewayInstance extraGateway(Map<String, Object> extra) {
        GatewayInstance gateway = GatewayInstance.start(extraProperties(extra));
        extras.add(gateway);
        return gateway;
    }

    /** {@link #extraGateway(Map)} on a clock the test moves, given back to real time after the test. */
    private static GatewayInstance extraGateway(Map<String, Object> extra, TestClock clock) {
        clocks.add(clock);
        GatewayInstance gateway = GatewayInstance.start(extraProperties(extra), clock);
        extras.add(gateway);
        return gateway;
    }

    private static Map<String, Object> extraProperties(Map<String, Object> extra) {
        Map<String, Object> properties = GatewayInstance.defaults(fixture.redis(), fixture.backend().baseUrl(), QUEUE);
        properties.put("management.endpoints.web.exposure.include", "health,queues");
        properties.putAll(extra);
        return properties;
    }

    /** One request, its body read in full (PreQueueOpeningTest asks the same way). */
    static Reply call(WebTestClient client, String path, String user, String token) {
        WebTestClient.RequestHeadersSpec<?> spec = client.get().uri(path);
        if (user != null) {
            spec = spec.header("X-User-Id", user);
        }
        if (token != null) {
            spec = spec.header("Queue-Token", token);
        }
        EntityExchangeResult<byte[]> result = spec.exchange().expectBody().returnResult();
        byte[] body = result.getResponseBody();
        return new Reply(result.getStatus().value(), result.getResponseHeaders(),
                body == null ? "" : new String(body, StandardCharsets.UTF_8));
    }

    /** Requests of this product the shop has seen since the test started. */
    private static int forwarded(String productId) {
        return fixture.backend().findAll(getRequestedFor(urlPathMatching("/api/products/" + productId + "(/.*)?"))).size();
    }

    private static WebTestClient.ResponseSpec operate(WebTestClient client, String productId, String body) {
        return client.post().uri("/actuator/queues/" + productId)
                .header("Content-Type", "application/json").bodyValue(body).exchange();
    }

    private static WebTestClient.BodyContentSpec status(WebTestClient client, String productId, String user,
            String token) {
        return client.get().uri("/queue/" + productId + "/status")
                .header("X-User-Id", user).header("Queue-Token", token)
                .exchange().expectStatus().isOk().expectBody();
    }

    /** The waiting page a browser gets on a first visit, in {@code language}. */
    private static String page(WebTestClient client, String productId, String user, String language) {
        return client.get().uri("/api/products/" + productId).header("X-User-Id", user).header("Accept", BROWSER)
                .header("Accept-Language", language).exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().contentTypeCompatibleWith(MediaType.TEXT_HTML)
                .expectBody(String.class).returnResult().getResponseBody();
    }

    private static String tokenOf(Reply reply, int expectedStatus) {
        assertThat(reply.status).as(reply.body).isEqualTo(expectedStatus);
        String token = reply.headers.getFirst("Queue-Token");
        assertThat(token).isNotBlank();
        return token;
    }

    record Reply(int status, HttpHeaders headers, String body) {

        <T> T json(String path) {
            return JsonPath.read(body, path);
        }
    }
}
