package io.queuegate.store;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisSentinel;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A failover that loses the last writes: Redis Sentinel with a master, a replica fed through a
 * proxy the test holds back, and three sentinels, all real processes; two gateways. A completion,
 * an admission and two joins reach the master but never the replica; the master is killed and
 * the replica promoted as it is. Afterwards the completed purchase stays completed, the lost
 * admission keeps its session, the lost joins keep their places, and the shop never has more than
 * max-active shoppers in checkout.
 */
class RedisFailoverLossTest {

    private static final int MAX_ACTIVE = 2;

    private static RedisSentinel sentinel;
    private static WireMockServer backend;
    private static final GatewayInstance[] gateways = new GatewayInstance[2];

    private final Set<String> inCheckout = new LinkedHashSet<>();

    @BeforeAll
    static void start() {
        sentinel = RedisSentinel.startWithReplicationProxy();
        backend = Backend.start();
        Map<String, Object> properties = GatewayInstance.defaults(backend.baseUrl(), Map.of(
                "max-active", Integer.toString(MAX_ACTIVE),
                "promotion", "pubsub",
                "complete-on", "POST /api/products/{productId}/orders"));
        properties.put("spring.data.redis.sentinel.master", RedisSentinel.MASTER_NAME);
        properties.put("spring.data.redis.sentinel.nodes", sentinel.sentinelNodes());
        properties.put("queuegate.redis.timeout", "500ms");
        properties.put("spring.data.redis.timeout", "500ms");
        properties.put("queuegate.redis.fail-fast-when-disconnected", "true");
        for (int i = 0; i < gateways.length; i++) {
            gateways[i] = GatewayInstance.start(properties);
        }
    }

    @AfterAll
    static void stop() {
        for (GatewayInstance gateway : gateways) {
            if (gateway != null) {
                gateway.close();
            }
        }
        if (backend != null) {
            backend.stop();
        }
        if (sentinel != null) {
            sentinel.close();
        }
    }

    @Test
    void aPromotedReplicaThatLackedTheLastWritesLosesNoPlaceAndReopensNoPurchase() {
        Map<String, String> tokens = new LinkedHashMap<>();
        for (String user : List.of("alice", "bob")) {
            Reply admitted = get(0, user, null);
            assertThat(admitted.status()).isEqualTo(200);
            tokens.put(user, admitted.token());
        }
        for (String user : List.of("carol", "dave", "erin")) {
            tokens.put(user, get(1, user, null).token());
        }
        int master = sentinel.currentMasterPort();
        assertThat(sentinel.node(master).waitForReplication(1, 2000)).as("the replica has all of this").isEqualTo(1);

        sentinel.pauseReplication();
        // Only the master hears these: alice buys, carol is admitted in her place and arrives,
        // frank and grace join.
        assertThat(order(1, "alice", tokens.get("alice"))).isEqualTo(201);
        Reply carol = get(0, "carol", tokens.get("carol"));
        assertThat(carol.status()).isEqualTo(200);
        tokens.put("carol", carol.token());
        Map<String, Long> ranks = new LinkedHashMap<>();
        for (String user : List.of("frank", "grace")) {
            Reply joined = get(1, user, null);
            assertThat(joined.status()).isEqualTo(429);
            tokens.put(user, joined.token());
            ranks.put(user, joined.rank());
        }
        ranks.put("dave", get(0, "dave", tokens.get("dave")).rank());
        ranks.put("erin", get(1, "erin", tokens.get("erin")).rank());
        // Both instances read their views of the line after the writes the replica lacks.
        for (int instance = 0; instance < 2; instance++) {
            int gateway = instance;
            Awaitility.await().atMost(Duration.ofSeconds(3))
                    .until(() -> get(gateway, "grace", tokens.get("grace")).cookie() == null);
        }

        assertThat(sentinel.node(sentinel.replicaPort()).zscore("qg:{42}:active", "alice"))
                .as("the replica still has alice's completed session").isNotNull();
        assertThat(sentinel.node(sentinel.replicaPort()).zscore("qg:{42}:active", "carol"))
                .as("and not carol's admission").isNull();
        sentinel.killMaster();
        Awaitility.await("the sentinels promote the replica").atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(200)).until(() -> sentinel.currentMasterPort() == sentinel.replicaPort());
        for (GatewayInstance gateway : gateways) {
            Awaitility.await("the gateway serves again").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                    .until(() -> gateway.client().get().uri("/actuator/health/readiness").exchange()
                            .returnResult(String.class).getStatus().value() == 200);
        }

        assertThat(get(0, "alice", tokens.get("alice")).status()).as("alice's purchase is not reopened")
                .isNotEqualTo(200);
        assertThat(get(1, "carol", tokens.get("carol")).status()).as("carol's lost admission").isEqualTo(200);
        assertThat(get(0, "bob", tokens.get("bob")).status()).isEqualTo(200);
        for (Map.Entry<String, Long> waiting : ranks.entrySet()) {
            Reply back = get(1, waiting.getKey(), tokens.get(waiting.getKey()));
            assertThat(back.status()).as(waiting.getKey()).isEqualTo(429);
            assertThat(back.rank()).as(waiting.getKey() + "'s rank, against " + waiting.getValue() + " before")
                    .isLessThanOrEqualTo(waiting.getValue());
        }
        assertThat(get(0, "dave", tokens.get("dave")).rank()).isLessThan(get(0, "grace", tokens.get("grace")).rank());
        Reply newcomer = get(1, "henry", null);
        assertThat(newcomer.rank()).as("behind the joins the replica never had").isGreaterThan(ranks.get("grace"));
        assertThat(inCheckout).as("in checkout at once").hasSizeLessThanOrEqualTo(MAX_ACTIVE);
    }

    private Reply get(int instance, String user, String token) {
        WebTestClient.RequestHeadersSpec<?> request = gateways[instance].client().get().uri("/api/products/42")
                .header("X-User-Id", user);
        if (token != null) {
            request = request.header("Queue-Token", token);
        }
        EntityExchangeResult<String> result = request.exchange().expectBody(String.class).returnResult();
        int status = result.getStatus().value();
        if (status == 200) {
            inCheckout.add(user);
        }
        String rank = result.getResponseHeaders().getFirst("Queue-Rank");
        String issued = result.getResponseHeaders().getFirst("Queue-Token");
        return new Reply(status, rank == null ? -1 : Long.parseLong(rank), issued != null ? issued : token,
                result.getResponseHeaders().getFirst("Set-Cookie"));
    }

    private int order(int instance, String user, String token) {
        int status = gateways[instance].client().post().uri("/api/products/42/orders").header("X-User-Id", user)
                .header("Queue-Token", token).exchange().returnResult(String.class).getStatus().value();
        if (status < 400) {
            inCheckout.remove(user);
        }
        return status;
    }

    private record Reply(int status, long rank, String token, String cookie) {
    }
}
