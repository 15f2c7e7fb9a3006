package io.queuegate.admission;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.queuegate.support.Draw;
import io.queuegate.support.GatewayFixture;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.Lines;
import io.queuegate.support.PreviousRelease;
import io.queuegate.support.Tokens;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A rolling upgrade in the middle of a sale: instances of the previous release (0.1.0, its Lua
 * scripts kept in the test resources and run as it ran them) and of this one serve the same
 * product in the same Redis at once. Shoppers who joined under the previous release keep their
 * places and their order, their tokens of the previous release stay valid on the new instances,
 * sessions end on either side, and never are more shoppers active than max-active. A sale's
 * pre-queue the previous release opened is drawn with its seed exactly as before.
 */
class RollingUpgradeTest {

    private static final String PRODUCT = "42";
    private static final int MAX_ACTIVE = 2;

    private static final Map<String, Object> QUEUE = Map.of("max-active", Integer.toString(MAX_ACTIVE),
            "session-ttl", "10m", "promotion", "pubsub", "complete-on", "POST /api/products/{productId}/orders");

    /** 53 random bits in decimal: a seed as the previous release drew it for a pre-queue's draw. */
    private static final String OLD_SEED = "6004799503160661";

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(QUEUE);

    /**
     * Gateways started by a test, closed after the last one: closing a gateway disposes Reactor
     * Netty's JVM-wide event loops, and with them the fixture's servers.
     */
    private static final List<GatewayInstance> extras = new CopyOnWriteArrayList<>();

    @AfterAll
    static void closeExtras() {
        GatewayInstance.closeAll(extras);
    }

    @Test
    void shoppersWaitingThroughARollingUpgradeKeepTheirPlacesAndTheirOrder() {
        PreviousRelease old = new PreviousRelease(fixture.redis().commands(), PRODUCT);
        Map<String, String> tokens = new LinkedHashMap<>();
        for (int i = 0; i < 12; i++) {
            String user = "u" + i;
            List<Object> joined = old.join(user, System.currentTimeMillis());
            // The previous release answered {state, rank, promoted, enqueued, rate}: active, then waiting.
            assertThat(joined.get(0)).as(user).isEqualTo(i < MAX_ACTIVE ? 1L : 0L);
            tokens.put(user, previousReleaseToken(user, i >= MAX_ACTIVE));
        }

        // Mid-rollout, the shoppers' polls land on either release: both see the same line.
        for (int i = MAX_ACTIVE; i < 12; i++) {
            String user = "u" + i;
            long expected = i - MAX_ACTIVE + 1;
            if (i % 2 == 0) {
                EntityExchangeResult<byte[]> poll = poll(fixture.gateway(), user, tokens.get(user));
                assertThat(poll.getStatus().value()).as(user).isEqualTo(429);
                assertThat(poll.getResponseHeaders().getFirst("Queue-Rank")).as(user).isEqualTo(Long.toString(expected));
            }
            else {
                assertThat(old.join(user, System.currentTimeMillis()).get(1)).as(user).isEqualTo(expected);
            }
        }

        // Sessions end on both sides until everyone was served; admissions follow the line.
        List<String> admitted = new ArrayList<>(List.of("u0", "u1"));
        for (int step = 0; admitted.size() < 12 || !active().isEmpty(); step++) {
            assertThat(active().size()).as("active at step %d", step).isLessThanOrEqualTo(MAX_ACTIVE);
            String finishing = active().get(0);
            if (step % 2 == 0) {
                // A shopper of the previous release orders through a new instance, with the old token.
                fixture.client().post().uri("/api/products/42/orders").header("X-User-Id", finishing)
                        .header("Queue-Token", tokens.get(finishing)).exchange().expectStatus().isCreated()
                        .expectBody().returnResult();
            }
            else {
                old.leave(finishing, System.currentTimeMillis());
            }
            active().stream().filter(user -> !admitted.contains(user)).sorted(RollingUpgradeTest::byNumber)
                    .forEach(admitted::add);
            assertThat(step).as("everyone is served within a few steps").isLessThan(40);
        }
        assertThat(admitted).containsExactly("u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8", "u9", "u10", "u11");
        assertThat(Lines.of(fixture.redis().commands(), PRODUCT)).isEmpty();
    }

    @Test
    void aNewInstanceLetsThroughAShopperThePreviousReleaseAdmitted() {
        PreviousRelease old = new PreviousRelease(fixture.redis().commands(), PRODUCT);
        old.join("alice", System.currentTimeMillis());
        EntityExchangeResult<byte[]> pass = poll(fixture.gateway(), "alice", previousReleaseToken("alice", false));
        assertThat(pass.getStatus().value()).isEqualTo(200);
    }

    @Test
    void aProductOnlyThePreviousReleaseJoinedIsServedByTheRulesItStored() {
        // Nobody asks through this release's join, which stores the rules by their names: its leave
        // (leave.lua) reads max-active, the session and the promotion from the fields the previous
        // release wrote (rules.lua reads them while none of this release's are there).
        String product = "44";
        PreviousRelease old = new PreviousRelease(fixture.redis().commands(), product);
        for (String user : List.of("p0", "p1", "p2", "p3")) {
            old.join(user, System.currentTimeMillis());
        }
        String settings = "qg:{" + product + "}:settings";
        assertThat(fixture.redis().commands().hget(settings, "max")).isEqualTo(Integer.toString(MAX_ACTIVE));
        // Stamped with the Redis data's epoch, as the releases since 0.1.0 stamp what they write (they
        // keep the rules in the same fields): no recovery stores this release's rules first.
        poll(fixture.gateway(), "someone", null);
        String epoch = fixture.redis().commands().hget("qg:{" + PRODUCT + "}:settings", "epoch");
        assertThat(epoch).as("the epoch this release stamps products with").isNotBlank();
        fixture.redis().commands().hset(settings, "epoch", epoch);

        // p0 gives up the session on a new instance (DELETE /queue/{productId}, which joins nothing).
        fixture.client().delete().uri("/queue/" + product).header("X-User-Id", "p0")
                .header("Queue-Token", previousReleaseToken(product, "p0", false)).exchange()
                .expectStatus().is2xxSuccessful().expectBody().returnResult();

        assertThat(fixture.redis().commands().zrange("qg:{" + product + "}:active", 0, -1))
                .as("p0's leave frees a place for p2, by the previous release's max-active")
                .containsExactlyInAnyOrder("p1", "p2");
        assertThat(fixture.redis().commands().hget(settings, "rule:max-active"))
                .as("no join of this release stored the rules").isNull();
    }

    @Test
    void aPreQueueThePreviousReleaseOpenedIsDrawnAsItWouldHaveBeenAndShowsNoCommitment() {
        // A sale a few seconds after this gateway's start, on a gateway of its own (see DropFlowTest).
        // Far enough ahead for a gateway's start on a busy machine (a few seconds), and the joins.
        Instant opensAt = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(12);
        Map<String, Object> properties = GatewayInstance.defaults(fixture.redis(), fixture.backend().baseUrl(), QUEUE);
        properties.put("management.endpoints.web.exposure.include", "health,queues");
        properties.put("queuegate.products.drop.opens-at", opensAt);
        GatewayInstance gateway = GatewayInstance.start(properties);
        extras.add(gateway);
        assertThat(Instant.now()).as("the gateway must be up well before opens-at " + opensAt)
                .isBefore(opensAt.minusSeconds(2));

        // The previous release's instance opens the draw, with its kind of seed; both releases join.
        PreviousRelease old = new PreviousRelease(fixture.redis().commands(), "drop");
        List<String> users = List.of("old-ann", "new-ben", "old-cat", "new-dan", "new-eve");
        Map<String, String> tokens = new LinkedHashMap<>();
        for (String user : users) {
            if (user.startsWith("old")) {
                List<Object> joined = old.joinSale(user, System.currentTimeMillis(), MAX_ACTIVE, opensAt.toEpochMilli(),
                        OLD_SEED);
                assertThat(joined.get(0)).as("%s in the pre-queue", user).isEqualTo(2L);
                tokens.put(user, previousReleaseToken("drop", user, true));
            }
            else {
                EntityExchangeResult<byte[]> joined = request(gateway, "drop", user, null);
                assertThat(joined.getStatus().value()).as(user).isEqualTo(429);
                String body = new String(joined.getResponseBody(), StandardCharsets.UTF_8);
                assertThat(body).as(user).contains("\"status\":\"PRE_QUEUE\"").doesNotContain("seedCommitment");
                tokens.put(user, joined.getResponseHeaders().getFirst("Queue-Token"));
            }
        }
        assertThat(fixture.redis().commands().hget("qg:{drop}:settings", "seed")).as("kept, not replaced")
                .isEqualTo(OLD_SEED);
        for (String user : List.of("old-ann", "new-dan")) {
            gateway.client().get().uri("/queue/drop/status").header("X-User-Id", user).header("Queue-Token", tokens.get(user))
                    .exchange().expectStatus().isOk().expectBody()
                    .jsonPath("$.status").isEqualTo("PRE_QUEUE").jsonPath("$.seedCommitment").doesNotExist();
        }

        // This release's instance opens the sale: the previous release's draw, as it would have drawn.
        await("the sale opens at " + opensAt).atMost(Duration.between(Instant.now(), opensAt).plusSeconds(3))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> fixture.redis().commands().zcard("qg:{drop}:active") == MAX_ACTIVE);
        gateway.client().get().uri("/actuator/queues/drop").exchange().expectStatus().isOk().expectBody()
                .jsonPath("$.opening.seed").isEqualTo(OLD_SEED)
                .jsonPath("$.opening.preQueued").isEqualTo(users.size())
                .jsonPath("$.seedCommitment").doesNotExist();
        List<String> drawn = Draw.order(OLD_SEED, users);
        for (int i = 0; i < drawn.size(); i++) {
            String user = drawn.get(i);
            WebTestClient.BodyContentSpec status = gateway.client().get().uri("/queue/drop/status")
                    .header("X-User-Id", user).header("Queue-Token", tokens.get(user))
                    .exchange().expectStatus().isOk().expectBody();
            if (i < MAX_ACTIVE) {
                status.jsonPath("$.status").isEqualTo("ACTIVE");
            }
            else {
                status.jsonPath("$.status").isEqualTo("WAITING").jsonPath("$.rank").isEqualTo(i - 1)
                        .jsonPath("$.seedCommitment").doesNotExist();
                // The previous release's own scripts place them alike.
                assertThat(old.joinSale(user, System.currentTimeMillis(), MAX_ACTIVE, opensAt.toEpochMilli(), OLD_SEED)
                        .get(1)).as(user).isEqualTo((long) (i - 1));
            }
        }
    }

    private static List<String> active() {
        return fixture.redis().commands().zrange("qg:{42}:active", 0, -1);
    }

    private static int byNumber(String a, String b) {
        return Integer.compare(Integer.parseInt(a.substring(1)), Integer.parseInt(b.substring(1)));
    }

    private static EntityExchangeResult<byte[]> poll(GatewayInstance gateway, String user, String token) {
        return request(gateway, PRODUCT, user, token);
    }

    private static EntityExchangeResult<byte[]> request(GatewayInstance gateway, String product, String user,
            String token) {
        WebTestClient.RequestHeadersSpec<?> request = gateway.client().get().uri("/api/products/" + product)
                .header("X-User-Id", user);
        if (token != null) {
            request = request.header("Queue-Token", token);
        }
        return request.exchange().expectBody().returnResult();
    }

    /**
     * A wait token as the previous release signed it: HS256 with the key id of the secret, the
     * claims typ, pid, uid, anon, iat, exp and, while waiting, jat. Written by hand, so a change to
     * this release's codec cannot change what "a previous release's token" means here.
     */
    private static String previousReleaseToken(String user, boolean waiting) {
        return previousReleaseToken(PRODUCT, user, waiting);
    }

    private static String previousReleaseToken(String product, String user, boolean waiting) {
        Map<String, Object> claims = Tokens.waitClaims(product, user);
        if (waiting) {
            claims.put("jat", Instant.now().getEpochSecond());
        }
        return Tokens.hs256(GatewayInstance.SECRET, Tokens.hs256Header(GatewayInstance.SECRET), claims);
    }
}
