package io.queuegate.store;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisSentinel;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * QueueGate behind Redis Sentinel: the gateway knows only the sentinels and the master's name.
 * The master is killed under light traffic; while the sentinels fail over, closed routes answer
 * 503 at once, and afterwards the gateway serves from the promoted replica with every place
 * that had reached it.
 */
class RedisSentinelTest {

    private static RedisSentinel sentinel;
    private static WireMockServer backend;
    private static GatewayInstance gateway;
    private static WebClient http;

    private final List<Outcome> outcomes = new CopyOnWriteArrayList<>();
    private Disposable load;

    @BeforeAll
    static void start() {
        sentinel = RedisSentinel.start();
        backend = Backend.start();
        Map<String, Object> properties = GatewayInstance.defaults(backend.baseUrl(), Map.of(
                "max-active", "2",
                "promotion", "pubsub",
                "complete-on", "POST /api/products/{productId}/orders",
                "on-redis-failure", "closed"));
        properties.put("spring.data.redis.sentinel.master", RedisSentinel.MASTER_NAME);
        properties.put("spring.data.redis.sentinel.nodes", sentinel.sentinelNodes());
        // A dead master costs each request at most this, not Lettuce's default minute.
        properties.put("queuegate.redis.timeout", "500ms");
        properties.put("spring.data.redis.timeout", "500ms");
        properties.put("queuegate.safety-net.interval", "1s");
        gateway = GatewayInstance.start(properties);
        http = WebClient.builder().baseUrl(gateway.baseUrl())
                .clientConnector(new ReactorClientHttpConnector(HttpClient.create()
                        .responseTimeout(Duration.ofSeconds(10))))
                .build();
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
        if (backend != null) {
            backend.stop();
        }
        if (sentinel != null) {
            sentinel.close();
        }
    }

    @AfterEach
    void stopLoad() {
        if (load != null) {
            load.dispose();
        }
    }

    @Test
    void aFailoverKeepsEveryReplicatedPlaceAndClosedRoutesAnswer503WhileItRuns() {
        int oldMaster = sentinel.currentMasterPort();
        assertThat(oldMaster).isEqualTo(sentinel.originalMasterPort());
        String alice = join("42", "alice").token;
        String bob = join("42", "bob").token;
        Map<String, String> waiting = new LinkedHashMap<>();
        for (String user : List.of("carol", "dave", "erin", "frank")) {
            Outcome joined = join("42", user);
            assertThat(joined.status).isEqualTo(429);
            waiting.put(user, joined.token);
        }
        assertThat(rank("frank", waiting.get("frank"))).isEqualTo(4);
        // Replication is asynchronous: writes the master took just before it died may never
        // reach the replica, and Sentinel promotes the replica as it is. Only what the replica
        // confirmed here is asserted to survive; the load's own joins below may or may not.
        assertThat(sentinel.node(oldMaster).waitForReplication(1, 1000)).as("replicas that confirmed").isEqualTo(1);

        startLoad(waiting.get("carol"));
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> outcomes.size() >= 5);
        assertThat(sentinel.killMaster()).isEqualTo(oldMaster);

        Outcome duringFailover = get("/api/products/42", "zed");
        assertThat(duringFailover.status).isEqualTo(503);
        assertThat(duringFailover.body).contains("\"error\":\"queue_unavailable\"");
        assertThat(duringFailover.retryAfter).isNotBlank();
        assertThat(duringFailover.millis).as("answer time ms, not a hang").isLessThan(1_500);

        Awaitility.await("the sentinels promote the replica").atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> sentinel.currentMasterPort() == sentinel.replicaPort());
        // Lettuce asks the sentinels for the master again on every reconnect.
        Awaitility.await("the gateway serves again").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                .until(() -> get("/actuator/health/readiness", null).status == 200
                        && statusOf("carol", waiting.get("carol")).block().status == 200);
        load.dispose();

        assertThat(status("alice", alice)).contains("\"ACTIVE\"");
        assertThat(status("bob", bob)).contains("\"ACTIVE\"");
        assertThat(rank("carol", waiting.get("carol"))).isEqualTo(1);
        assertThat(rank("dave", waiting.get("dave"))).isEqualTo(2);
        assertThat(rank("erin", waiting.get("erin"))).isEqualTo(3);
        assertThat(rank("frank", waiting.get("frank"))).isEqualTo(4);
        // Writes go to the new master (a replica would refuse them): a completion lets carol in.
        assertThat(http.post().uri("/api/products/42/orders").header("X-User-Id", "alice").header("Queue-Token", alice)
                .exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value())).block()).isEqualTo(201);
        assertThat(status("carol", waiting.get("carol"))).contains("\"ACTIVE\"");
        assertThat(rank("dave", waiting.get("dave"))).isEqualTo(1);
        // The slot-available subscription came back on the new master too. Out of the registry,
        // the product is invisible to the safety net, so only the listener can let dave in.
        RedisCommands<String, String> newMaster = sentinel.node(sentinel.replicaPort());
        newMaster.srem(QueueKeys.PRODUCTS, "42");
        newMaster.zrem("qg:{42}:active", "bob");
        Awaitility.await("the listener promotes dave").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> {
                    newMaster.publish("qg:slot-available:42", "bob");
                    assertThat(status("dave", waiting.get("dave"))).contains("\"ACTIVE\"");
                });

        assertThat(outcomes).as("answers under load").isNotEmpty().allSatisfy(o -> {
            assertThat(o.status).as("status").isIn(200, 429, 503);
            assertThat(o.millis).as("answer time ms").isLessThan(2_000);
            if (o.status == 503) {
                assertThat(o.body).contains("queue_unavailable");
            }
        });
        assertThat(outcomes).as("the load met the outage").anyMatch(o -> o.status == 503);
    }

    /** Light traffic: carol polls her status and newcomers join another product, 20 requests a second. */
    private void startLoad(String carol) {
        AtomicLong newcomers = new AtomicLong();
        load = Flux.interval(Duration.ofMillis(50))
                .onBackpressureDrop()
                .flatMap(i -> i % 2 == 0 ? statusOf("carol", carol)
                        : timed("/api/products/7", "newcomer" + newcomers.incrementAndGet(), null), 4)
                .subscribe(outcomes::add);
    }

    private Outcome join(String product, String user) {
        return timed("/api/products/" + product, user, null).block();
    }

    private Outcome get(String path, String user) {
        return timed(path, user, null).block();
    }

    private Mono<Outcome> statusOf(String user, String token) {
        return timed("/queue/42/status", user, token);
    }

    private String status(String user, String token) {
        Outcome outcome = statusOf(user, token).block();
        assertThat(outcome.status).as("status of " + user).isEqualTo(200);
        return outcome.body;
    }

    private long rank(String user, String token) {
        String body = status(user, token);
        assertThat(body).as(user).contains("\"WAITING\"");
        return Long.parseLong(body.replaceAll(".*\"rank\":(\\d+).*", "$1"));
    }

    private Mono<Outcome> timed(String path, String user, String token) {
        return Mono.defer(() -> {
            long start = System.nanoTime();
            WebClient.RequestHeadersSpec<?> spec = http.get().uri(path);
            if (user != null) {
                spec = spec.header("X-User-Id", user);
            }
            if (token != null) {
                spec = spec.header("Queue-Token", token);
            }
            return spec.exchangeToMono(r -> r.bodyToMono(String.class).defaultIfEmpty("")
                    .map(body -> new Outcome(r.statusCode().value(), body,
                            r.headers().asHttpHeaders().getFirst("Queue-Token"),
                            r.headers().asHttpHeaders().getFirst("Retry-After"),
                            (System.nanoTime() - start) / 1_000_000)));
        });
    }

    private record Outcome(int status, String body, String token, String retryAfter, long millis) {
    }
}
