package io.queuegate.admission;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.queuegate.store.DrawSeed;
import io.queuegate.support.GatewayFixture;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A drop that Redis forgets twice, restarted empty each time: once while its pre-queue fills, and
 * once just after its opening drew the line. Two gateways. The pre-queue keeps its shoppers, its
 * draw and its commitment, a shopper who joins after the first loss joins the same draw, the seed
 * revealed at the opening is the one committed to, and after the second loss the drawn line comes
 * back in its drawn order.
 */
class DropLossTest {

    private static final String PRODUCT = "drop";

    /** Far enough ahead for the gateways' cold start and the first loss; near enough not to wait long. */
    private static final Instant OPENS = Instant.now().truncatedTo(ChronoUnit.SECONDS).plus(Duration.ofSeconds(28));

    private static final Pattern COMMITMENT = Pattern.compile("\"seedCommitment\":\"([0-9a-f]{64})\"");

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of(
                    "max-active", "1",
                    "session-ttl", "10m",
                    "promotion", "pubsub"))
            .instances(2)
            .with("queuegate.products." + PRODUCT + ".opens-at", OPENS.toString());

    @Test
    void aPreQueueAndItsOpenedDrawComeBackWithTheCommittedSeedAndTheDrawnOrder() {
        Map<String, String> tokens = new LinkedHashMap<>();
        String commitment = null;
        for (int i = 1; i <= 6; i++) {
            Reply joined = get(i % 2, "p" + i, null);
            assertThat(joined.status()).isEqualTo(429);
            assertThat(joined.body()).contains("\"PRE_QUEUE\"");
            commitment = commitment == null ? commitment(joined) : commitment;
            assertThat(commitment(joined)).isEqualTo(commitment);
            tokens.put("p" + i, joined.token());
        }
        String committed = commitment;
        readViews(tokens.get("p1"), "p1");

        // The first loss, while the pre-queue fills.
        fixture.redis().kill();
        fixture.redis().restartEmpty();
        awaitAnswers();
        for (String user : List.of("p6", "p5", "p4", "p2", "p1")) {
            Reply back = get(1, user, tokens.get(user));
            assertThat(back.body()).as(user).contains("\"PRE_QUEUE\"");
            assertThat(commitment(back)).as(user + " sees the commitment shown before the loss").isEqualTo(committed);
            tokens.put(user, back.token());
        }
        Reply late = get(0, "late", null);
        assertThat(late.body()).as("a shopper who joins after the loss").contains("\"PRE_QUEUE\"");
        assertThat(commitment(late)).as("joins the same draw").isEqualTo(committed);
        tokens.put("late", late.token());
        tokens.remove("p3");

        // The opening: the seed revealed is the one committed to before the loss.
        Awaitility.await().atMost(Duration.ofSeconds(40)).until(() -> Instant.now().isAfter(OPENS.plusMillis(200)));
        Map<String, Long> drawn = new HashMap<>();
        for (Map.Entry<String, String> shopper : tokens.entrySet()) {
            Reply answer = get(0, shopper.getKey(), shopper.getValue());
            drawn.put(shopper.getKey(), answer.status() == 200 ? 0 : answer.rank());
            tokens.put(shopper.getKey(), answer.token());
        }
        String seed = fixture.redis().commands().hget("qg:{" + PRODUCT + "}:settings", "seed");
        assertThat(DrawSeed.commitmentOf(seed)).as("the seed revealed at the opening").isEqualTo(committed);
        assertThat(drawn.values()).as("one admitted at the opening, the others drawn behind")
                .hasSize(6).doesNotHaveDuplicates().containsOnlyOnce(0L);
        String admitted = drawn.entrySet().stream().filter(entry -> entry.getValue() == 0).findFirst().orElseThrow()
                .getKey();
        readViews(tokens.get(first(drawn)), first(drawn));

        // The second loss, just after the opening.
        fixture.redis().kill();
        fixture.redis().restartEmpty();
        awaitAnswers();
        Map<String, Long> after = new HashMap<>();
        List<String> backToFront = new ArrayList<>(drawn.keySet());
        backToFront.sort((x, y) -> Long.compare(drawn.get(y), drawn.get(x)));
        for (String user : backToFront) {
            Reply back = get(1, user, tokens.get(user));
            if (user.equals(admitted)) {
                assertThat(back.status()).as(user + " was admitted at the opening").isEqualTo(200);
            }
            else {
                assertThat(back.status()).as(user).isEqualTo(429);
                assertThat(back.rank()).as(user + "'s drawn place").isLessThanOrEqualTo(drawn.get(user));
                after.put(user, back.rank());
            }
        }
        List<String> inOrderAfter = after.keySet().stream().sorted((x, y) -> Long.compare(after.get(x), after.get(y)))
                .toList();
        List<String> inOrderDrawn = after.keySet().stream().sorted((x, y) -> Long.compare(drawn.get(x), drawn.get(y)))
                .toList();
        assertThat(inOrderAfter).as("the drawn order").isEqualTo(inOrderDrawn);
        assertThat(fixture.redis().commands().hget("qg:{" + PRODUCT + "}:settings", "seed"))
                .as("the drawn line is placed by the same seed").isEqualTo(seed);
        assertThat(get(0, "after", null).rank()).as("a newcomer behind the drawn line").isGreaterThan(5);
    }

    /** The shopper drawn first behind the one admitted at the opening. */
    private static String first(Map<String, Long> drawn) {
        return drawn.entrySet().stream().filter(entry -> entry.getValue() > 0).min(Map.Entry.comparingByValue())
                .orElseThrow().getKey();
    }

    /** Each instance answers this shopper from its view of the line, so it has read (and remembers) it. */
    private void readViews(String token, String user) {
        for (int instance = 0; instance < 2; instance++) {
            int gateway = instance;
            Awaitility.await().atMost(Duration.ofSeconds(3)).until(() -> get(gateway, user, token).cookie() == null);
        }
    }

    private void awaitAnswers() {
        for (int instance = 0; instance < 2; instance++) {
            WebTestClient client = fixture.gateway(instance).client();
            Awaitility.await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100))
                    .until(() -> client.get().uri("/actuator/health/readiness").exchange().returnResult(String.class)
                            .getStatus().value() == 200);
        }
    }

    private static String commitment(Reply reply) {
        Matcher matcher = COMMITMENT.matcher(reply.body());
        assertThat(matcher.find()).as("a commitment in " + reply.body()).isTrue();
        return matcher.group(1);
    }

    private Reply get(int instance, String user, String token) {
        WebTestClient.RequestHeadersSpec<?> request = fixture.gateway(instance).client().get()
                .uri("/api/products/" + PRODUCT).header("X-User-Id", user);
        if (token != null) {
            request = request.header("Queue-Token", token);
        }
        EntityExchangeResult<String> result = request.exchange().expectBody(String.class).returnResult();
        String rank = result.getResponseHeaders().getFirst("Queue-Rank");
        String issued = result.getResponseHeaders().getFirst("Queue-Token");
        return new Reply(result.getStatus().value(), rank == null ? -1 : Long.parseLong(rank),
                issued != null ? issued : token, result.getResponseHeaders().getFirst("Set-Cookie"),
                result.getResponseBody() == null ? "" : result.getResponseBody());
    }

    private record Reply(int status, long rank, String token, String cookie, String body) {
    }
}
