package io.queuegate.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.queuegate.events.QueueEventHub;
import io.queuegate.events.QueueEvents;
import io.queuegate.events.Trigger;
import io.queuegate.promotion.PromotionScheduler;
import io.queuegate.promotion.SlotEventConsumer;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisCluster;

import com.github.tomakehurst.wiremock.WireMockServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * QueueGate on a real three-master Redis Cluster: the gateway is given only
 * {@code spring.data.redis.cluster.nodes}, and every test uses one product per master (product
 * ids chosen by their hash slot), so each script runs on each node and every key of a product
 * must be on the node that owns its tag. Products are new in every test instead of flushing the
 * cluster between tests: a flush would also delete the stream's consumer group under the running
 * gateway, which is not what a cluster in production sees.
 */
class RedisClusterTest {

    private static RedisCluster cluster;
    private static WireMockServer backend;
    private static GatewayInstance gateway;
    private static Map<Integer, String> keyspaceProducts;
    private static Map<Integer, String> streamProducts;
    private static Map<Integer, String> expiryProducts;
    /** Per product, the triggers of every promotion the gateway reported (join, leave, promote, expiry...). */
    private static final Map<String, List<String>> promotions = new ConcurrentHashMap<>();

    @BeforeAll
    static void start() {
        cluster = RedisCluster.start();
        backend = Backend.start();
        Map<String, Object> properties = GatewayInstance.defaults(backend.baseUrl(), Map.of(
                "max-active", "2",
                "session-ttl", "1m",
                "promotion", "pubsub",
                "complete-on", "POST /api/products/{productId}/orders"));
        properties.put("spring.data.redis.cluster.nodes", cluster.nodes());
        // Short, so the keyspace test can tell whether the safety net would be needed at all.
        properties.put("queuegate.safety-net.interval", "1s");
        // Overrides are by product id, so the ids of those strategies are fixed before the start.
        keyspaceProducts = productsOnEveryMaster("ks");
        streamProducts = productsOnEveryMaster("st");
        keyspaceProducts.values().forEach(pid -> {
            properties.put("queuegate.products." + pid + ".promotion", "keyspace");
            properties.put("queuegate.products." + pid + ".session-ttl", "1s");
            properties.put("queuegate.products." + pid + ".max-active", "1");
        });
        expiryProducts = productsOnEveryMaster("kx");
        expiryProducts.values().forEach(pid -> {
            properties.put("queuegate.products." + pid + ".promotion", "keyspace");
            properties.put("queuegate.products." + pid + ".session-ttl", "1m");
            properties.put("queuegate.products." + pid + ".max-active", "1");
        });
        streamProducts.values().forEach(pid -> {
            properties.put("queuegate.products." + pid + ".promotion", "stream");
            properties.put("queuegate.products." + pid + ".max-active", "1");
        });
        gateway = GatewayInstance.start(properties);
        gateway.bean(QueueEventHub.class).register(new QueueEvents() {
            @Override
            public void promoted(String productId, Trigger trigger, long promoted) {
                promotions.computeIfAbsent(productId, id -> new CopyOnWriteArrayList<>()).add(trigger.value());
            }
        });
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
        if (backend != null) {
            backend.stop();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theWholeFlowWorksForProductsOnEveryMaster() {
        Map<Integer, String> products = productsOnEveryMaster("flow");
        assertThat(products.keySet()).as("one product per master").containsExactlyInAnyOrderElementsOf(cluster.ports());
        products.forEach((port, pid) -> {
            String alice = tokenOf(get(pid, "alice", null).expectStatus().isOk());
            get(pid, "bob", null).expectStatus().isOk();
            String carol = tokenOf(get(pid, "carol", null).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                    .expectHeader().valueEquals("Queue-Rank", "1"));
            String dave = tokenOf(get(pid, "dave", null).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                    .expectHeader().valueEquals("Queue-Rank", "2"));
            get(pid, "carol", carol).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                    .expectHeader().valueEquals("Queue-Rank", "1");
            get(pid, "alice", alice).expectStatus().isOk();

            // carol and dave hold tickets 3 and 4, on the line's first page; their ticket buckets too
            assertKeysOnlyOn(port, pid, "line:0", "active", "seq", "settings");

            order(pid, "alice", alice).expectStatus().isCreated();
            status(pid, "carol", carol).expectStatus().isOk().expectBody()
                    .jsonPath("$.status").isEqualTo("ACTIVE");
            get(pid, "carol", carol).expectStatus().isOk();
            // Answered from the instance's view of the line, a rank may be a moment stale (too large,
            // never too small) until the view is read again after the admission.
            Awaitility.await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> status(pid, "dave", dave).expectBody()
                    .jsonPath("$.status").isEqualTo("WAITING").jsonPath("$.rank").isEqualTo(1));

            leave(pid, "dave", dave).expectStatus().isOk().expectBody().jsonPath("$.status").isEqualTo("LEFT");
            status(pid, "dave", dave).expectBody().jsonPath("$.status").isEqualTo("NOT_FOUND");
            assertThat(cluster.commands().zrange("qg:{" + pid + "}:active", 0, -1)).containsExactlyInAnyOrder("bob", "carol");
        });
    }

    @Test
    void aSlotAvailableMessageFromTheOwningNodeReachesTheListener() {
        productsOnEveryMaster("pub").forEach((port, pid) -> {
            get(pid, "alice", null).expectStatus().isOk();
            get(pid, "bob", null).expectStatus().isOk();
            String carol = tokenOf(get(pid, "carol", null));
            // Out of the registry, the product is invisible to the safety net: only the listener
            // can promote carol now.
            cluster.commands().srem(QueueKeys.PRODUCTS, pid);
            cluster.commands().zrem("qg:{" + pid + "}:active", "alice");
            // Published on the node that owns the product, as leave.lua does: a cluster passes
            // classic PUBLISH on to every node, so the gateway's one subscription hears it
            // wherever it is connected.
            cluster.node(port).publish("qg:slot-available:" + pid, "alice");
            Awaitility.await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> assertThat(statusOf(pid, "carol", carol)).isEqualTo("ACTIVE"));
        });
    }

    @Test
    void theSafetyNetWalksTheRegistryAndPromotesOnEveryMaster() {
        Map<Integer, String> products = productsOnEveryMaster("net");
        Map<String, String> waiting = new LinkedHashMap<>();
        products.values().forEach(pid -> {
            get(pid, "alice", null).expectStatus().isOk();
            get(pid, "bob", null).expectStatus().isOk();
            waiting.put(pid, tokenOf(get(pid, "carol", null).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)));
        });
        // The registry is a single key, on whichever node owns its slot; the products are on all three.
        // New waiters' products reach it in batches, every QueueStore.REGISTRATION_PERIOD.
        Awaitility.await().atMost(Duration.ofSeconds(2)).untilAsserted(() ->
                assertThat(cluster.commands().smembers(QueueKeys.PRODUCTS)).containsAll(products.values()));
        products.values().forEach(pid -> promotions.remove(pid));
        // A place frees without any event: only a pass over the registry can fill it.
        products.values().forEach(pid -> cluster.commands().zrem("qg:{" + pid + "}:active", "alice"));

        PromotionScheduler scheduler = gateway.bean(PromotionScheduler.class);
        assertThat(scheduler.promoteAll("scheduler").block()).as("no product here is on the scheduler").isZero();
        long moved = scheduler.promoteAll("").block();

        // The gateway's own 1 s safety net runs this same pass and may have come first, so the
        // count of this call alone is 0 to 3; together they promoted every product, by a pass.
        assertThat(moved).isBetween(0L, 3L);
        waiting.forEach((pid, carol) -> {
            assertThat(statusOf(pid, "carol", carol)).as(pid).isEqualTo("ACTIVE");
            assertThat(promotions.get(pid)).as("promotions of " + pid).containsExactly("promote");
        });
    }

    @Test
    void aLeaveOnAStreamProductIsAppendedAndAcknowledgedByTheConsumerGroup() {
        streamProducts.forEach((port, pid) -> {
            String alice = tokenOf(get(pid, "alice", null).expectStatus().isOk());
            String bob = tokenOf(get(pid, "bob", null).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS));
            leave(pid, "alice", alice).expectStatus().isOk();
            // leave.lua fills the place itself; the stream event is for the other instances.
            assertThat(statusOf(pid, "bob", bob)).isEqualTo("ACTIVE");
        });
        // The stream is one key in a slot of its own, apart from every product it names.
        List<StreamMessage<String, String>> events = cluster.commands().xrange(QueueKeys.SLOT_EVENTS, Range.create("-", "+"));
        List<String> named = events.stream().map(event -> event.getBody().get("pid")).toList();
        assertThat(named).containsAll(streamProducts.values());
        String lastId = events.get(events.size() - 1).getId();
        Awaitility.await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            Map<String, Object> group = group(SlotEventConsumer.GROUP);
            assertThat(group.get("last-delivered-id")).as("read by the group").isEqualTo(lastId);
            assertThat(group.get("pending")).as("acknowledged").isEqualTo(0L);
        });
    }

    @Test
    void anExpiredKeyspaceSessionPromotesTheNextUserOnEveryMaster() {
        Map<String, String> waiting = new LinkedHashMap<>();
        keyspaceProducts.forEach((port, pid) -> {
            // notify-keyspace-events is a per-node setting: the gateway must have set it on every master.
            assertThat(cluster.node(port).configGet("notify-keyspace-events").get("notify-keyspace-events"))
                    .as("notify-keyspace-events on node " + port).contains("E").containsAnyOf("x", "A");
        });
        long start = System.nanoTime();
        keyspaceProducts.forEach((port, pid) -> {
            get(pid, "alice", null).expectStatus().isOk();
            assertThat(cluster.node(port).exists("qg:{" + pid + "}:slot:alice")).as("slot key on its product's node").isOne();
            waiting.put(pid, tokenOf(get(pid, "bob", null).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)));
        });
        // alice's 1 s session ends with no request; bob must be let in by the expiry event or,
        // failing that, by the 1 s safety net: 1 s + up to 1 s + slack.
        Map<String, Long> promotedAfterMs = new TreeMap<>();
        Awaitility.await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
            waiting.forEach((pid, bob) -> {
                if (!promotedAfterMs.containsKey(pid) && "ACTIVE".equals(statusOf(pid, "bob", bob))) {
                    promotedAfterMs.put(pid, (System.nanoTime() - start) / 1_000_000);
                }
            });
            assertThat(promotedAfterMs.keySet()).containsExactlyInAnyOrderElementsOf(waiting.keySet());
        });
        // Which path let bob in, per master: "expiry" is the keyspace listener, "promote" the
        // safety net. Keyspace events never leave their node, and the listener subscribes on
        // one node only, so the other masters' expiries wait for the safety net.
        List<String> paths = new ArrayList<>();
        keyspaceProducts.forEach((port, pid) -> paths.add(pid + "@" + port + ": " + promotions.get(pid)
                + ", bob active after " + promotedAfterMs.get(pid) + " ms"));
        System.out.println("[RedisClusterTest] keyspace promotions by path: " + paths);
        // "join" is alice's own admission; bob's must have come from one of the two paths.
        keyspaceProducts.values().forEach(pid -> assertThat(promotions.get(pid))
                .as("promotions of " + pid).containsAnyOf("expiry", "promote"));
    }

    /**
     * What {@code promotion: keyspace} promises (a place frees when the session ends, not at the
     * next safety-net period) on a cluster: Redis raises an expiry event only on the node that
     * holds the key and, unlike PUBLISH, never passes it on, so the listener has to hear every
     * master.
     */
    @Test
    void theKeyspaceListenerHearsExpiriesOnEveryMaster() {
        Map<String, String> waiting = new LinkedHashMap<>();
        Map<String, Integer> nodeOf = new LinkedHashMap<>();
        expiryProducts.forEach((port, pid) -> {
            get(pid, "alice", null).expectStatus().isOk();
            waiting.put(pid, tokenOf(get(pid, "bob", null).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)));
            nodeOf.put(pid, port);
            // alice's slot key expires now, while her session score stays a minute ahead: the
            // safety net (which frees by score) cannot let bob in, only the expiry event can.
            assertThat(cluster.node(port).pexpire("qg:{" + pid + "}:slot:alice", 200)).isTrue();
        });
        Awaitility.await("the expiry on every master lets bob in").atMost(Duration.ofSeconds(3))
                .pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
                    Map<String, String> states = new LinkedHashMap<>();
                    waiting.forEach((pid, bob) -> states.put(pid + "@" + nodeOf.get(pid), statusOf(pid, "bob", bob)));
                    // Which nodes the gateway holds pattern subscriptions on, to tell why one fails.
                    Map<Integer, Long> patterns = new TreeMap<>();
                    cluster.ports().forEach(node -> patterns.put(node, cluster.node(node).pubsubNumpat()));
                    assertThat(states).as("bob's state per product@master (pattern subscriptions per master: %s)", patterns)
                            .allSatisfy((product, state) ->
                            assertThat(state).as(product).isEqualTo("ACTIVE"));
                });
    }

    /** One fresh product id per master, keyed by the master's port. */
    private static Map<Integer, String> productsOnEveryMaster(String prefix) {
        Map<Integer, String> products = new TreeMap<>();
        for (int i = 0; products.size() < cluster.ports().size(); i++) {
            String pid = prefix + "-" + i;
            products.putIfAbsent(cluster.portOfKey(QueueKeys.of(pid).settings()), pid);
        }
        return products;
    }

    /** Every named key of the product is on {@code port}, and no key of it is anywhere else. */
    private static void assertKeysOnlyOn(int port, String pid, String... names) {
        String pattern = "qg:{" + pid + "}:*";
        Set<String> expected = new HashSet<>();
        for (String name : names) {
            expected.add("qg:{" + pid + "}:" + name);
        }
        for (int node : cluster.ports()) {
            List<String> keys = cluster.node(node).keys(pattern);
            if (node == port) {
                assertThat(keys).as("keys of " + pid + " on its node " + node).containsAll(expected);
            }
            else {
                assertThat(keys).as("keys of " + pid + " on node " + node).isEmpty();
            }
        }
    }

    /** XINFO GROUPS of the slot-event stream, for one group, as name -> value. */
    private static Map<String, Object> group(String name) {
        for (Object entry : cluster.commands().xinfoGroups(QueueKeys.SLOT_EVENTS)) {
            List<?> fields = (List<?>) entry;
            Map<String, Object> group = new LinkedHashMap<>();
            for (int i = 0; i + 1 < fields.size(); i += 2) {
                group.put(String.valueOf(fields.get(i)), fields.get(i + 1));
            }
            if (name.equals(group.get("name"))) {
                return group;
            }
        }
        throw new AssertionError("no consumer group " + name + " on " + QueueKeys.SLOT_EVENTS);
    }

    private static WebTestClient.ResponseSpec get(String productId, String user, String token) {
        WebTestClient.RequestHeadersSpec<?> spec = gateway.client().get().uri("/api/products/" + productId)
                .header("X-User-Id", user);
        if (token != null) {
            spec = spec.header("Queue-Token", token);
        }
        return spec.exchange();
    }

    private static WebTestClient.ResponseSpec order(String productId, String user, String token) {
        return gateway.client().post().uri("/api/products/" + productId + "/orders")
                .header("X-User-Id", user).header("Queue-Token", token).exchange();
    }

    private static WebTestClient.ResponseSpec status(String productId, String user, String token) {
        return gateway.client().get().uri("/queue/" + productId + "/status")
                .header("X-User-Id", user).header("Queue-Token", token).exchange();
    }

    private static String statusOf(String productId, String user, String token) {
        byte[] body = status(productId, user, token).expectStatus().isOk().expectBody().returnResult().getResponseBody();
        return new String(body).replaceAll(".*\"status\":\"([A-Z_]+)\".*", "$1");
    }

    private static WebTestClient.ResponseSpec leave(String productId, String user, String token) {
        return gateway.client().delete().uri("/queue/" + productId)
                .header("X-User-Id", user).header("Queue-Token", token).exchange();
    }

    private static String tokenOf(WebTestClient.ResponseSpec response) {
        String token = response.expectBody().returnResult().getResponseHeaders().getFirst("Queue-Token");
        assertThat(token).isNotBlank();
        return token;
    }
}
