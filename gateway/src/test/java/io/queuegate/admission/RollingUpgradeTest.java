package io.queuegate.admission;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.support.GatewayFixture;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.Lines;
import io.queuegate.support.Tokens;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.web.reactive.server.EntityExchangeResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rolling upgrade in the middle of a sale: instances of the previous release (0.1.0, its Lua
 * scripts kept in the test resources and run as it ran them) and of this one serve the same
 * product in the same Redis at once. Shoppers who joined under the previous release keep their
 * places and their order, their tokens of the previous release stay valid on the new instances,
 * sessions end on either side, and never are more shoppers active than max-active.
 */
class RollingUpgradeTest {

    private static final String PRODUCT = "42";
    private static final int MAX_ACTIVE = 2;

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", Integer.toString(MAX_ACTIVE),
            "session-ttl", "10m", "promotion", "pubsub", "complete-on", "POST /api/products/{productId}/orders"));

    @Test
    void shoppersWaitingThroughARollingUpgradeKeepTheirPlacesAndTheirOrder() {
        PreviousRelease old = new PreviousRelease(fixture.redis().commands());
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
        PreviousRelease old = new PreviousRelease(fixture.redis().commands());
        old.join("alice", System.currentTimeMillis());
        EntityExchangeResult<byte[]> pass = poll(fixture.gateway(), "alice", previousReleaseToken("alice", false));
        assertThat(pass.getStatus().value()).isEqualTo(200);
    }

    private static List<String> active() {
        return fixture.redis().commands().zrange("qg:{42}:active", 0, -1);
    }

    private static int byNumber(String a, String b) {
        return Integer.compare(Integer.parseInt(a.substring(1)), Integer.parseInt(b.substring(1)));
    }

    private static EntityExchangeResult<byte[]> poll(GatewayInstance gateway, String user, String token) {
        return gateway.client().get().uri("/api/products/42").header("X-User-Id", user).header("Queue-Token", token)
                .exchange().expectBody().returnResult();
    }

    /**
     * A wait token as the previous release signed it: HS256 with the key id of the secret, the
     * claims typ, pid, uid, anon, iat, exp and, while waiting, jat. Written by hand, so a change to
     * this release's codec cannot change what "a previous release's token" means here.
     */
    private static String previousReleaseToken(String user, boolean waiting) {
        Map<String, Object> claims = Tokens.waitClaims(PRODUCT, user);
        if (waiting) {
            claims.put("jat", Instant.now().getEpochSecond());
        }
        return Tokens.hs256(GatewayInstance.SECRET, Tokens.hs256Header(GatewayInstance.SECRET), claims);
    }

    /** An instance of the previous release, as far as Redis sees it: its scripts and their arguments. */
    private static final class PreviousRelease {

        private final RedisCommands<String, String> redis;
        private final String join = script("join.lua");
        private final String leave = script("leave.lua");
        private final String[] keys = { "qg:{42}:settings", "qg:{42}:active", "qg:{42}:seq" };

        PreviousRelease(RedisCommands<String, String> redis) {
            this.redis = redis;
        }

        /** Its join.lua under the same route: max-active 2, 10 minutes, pubsub, the default drop rules. */
        List<Object> join(String user, long now) {
            return redis.eval(join, ScriptOutputType.MULTI, keys, user, Long.toString(now), "2", "600000", "pubsub",
                    "7800000", "", "", "0", "60000", "60000", "");
        }

        List<Object> leave(String user, long now) {
            return redis.eval(leave, ScriptOutputType.MULTI, keys, user, Long.toString(now), "qg:slot-available:42");
        }

        /** As 0.1.0's QueueScripts built a script: line.lua and fill.lua, then the script. */
        private static String script(String name) {
            return read("line.lua") + read("fill.lua") + read(name);
        }

        private static String read(String name) {
            try (InputStream in = RollingUpgradeTest.class.getResourceAsStream("/upgrade/0.1.0/lua/" + name)) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
    }
}
