package io.queuegate.support;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.store.QueueKeys;
import io.queuegate.store.RedisEpoch;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * One real Redis, the WireMock shop and one gateway for a test class, with every test starting
 * from an empty Redis and a WireMock that has seen nothing:
 * <pre>
 * &#64;RegisterExtension
 * static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "2"));
 * </pre>
 */
public final class GatewayFixture implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {

    private final Map<String, Object> queue;
    private final Map<String, Object> properties = new LinkedHashMap<>();
    private final Map<String, Map<String, Object>> extraRoutes = new LinkedHashMap<>();

    private int instances = 1;
    /** Properties of the instances after the first that differ from the others', in their order. */
    private final List<Map<String, Object>> overrides = new ArrayList<>();
    private RedisProcess redis;
    private WireMockServer backend;
    private final List<GatewayInstance> gateways = new ArrayList<>();

    private GatewayFixture(Map<String, Object> queue) {
        this.queue = queue;
    }

    /** @param queue the product route's {@code queue} block */
    public static GatewayFixture withQueue(Map<String, Object> queue) {
        return new GatewayFixture(queue);
    }

    /**
     * The shop's product route as most tests need it: {@code maxActive} places of ten minutes each,
     * promoted by Pub/Sub, a session ended by an order ({@code POST /api/products/{productId}/orders}).
     */
    public static GatewayFixture shopQueue(int maxActive) {
        return withQueue(Map.of(
                "max-active", Integer.toString(maxActive),
                "session-ttl", "10m",
                "promotion", "pubsub",
                "complete-on", "POST /api/products/{productId}/orders"));
    }

    /** Adds a second route to the shop, without a {@code queue} block. */
    public GatewayFixture withOpenRoute(String id, String path) {
        return withRoute(id, Map.of("predicates[0]", "Path=" + path));
    }

    /**
     * Adds a route to the shop after the product route (and after the routes added before it):
     * {@code route} holds its properties below the route's own prefix, such as
     * {@code "predicates[0]" -> "Path=/open/**"} or {@code "metadata.queue.max-active" -> "1"}.
     */
    public GatewayFixture withRoute(String id, Map<String, Object> route) {
        extraRoutes.put(id, route);
        return this;
    }

    /** Runs this many gateway instances on the one Redis, for multi-instance claims. */
    public GatewayFixture instances(int count) {
        this.instances = count;
        return this;
    }

    /**
     * Runs one more instance on the one Redis, with these properties on top of the others' (for
     * example a read-only operations endpoint beside a writable one): {@link #gateway(int)} finds it
     * by its place, the first instance being 0.
     */
    public GatewayFixture andInstance(Map<String, Object> differing) {
        overrides.add(differing);
        return this;
    }

    /** Adds a gateway property (for example a {@code queuegate.*} setting). */
    public GatewayFixture with(String name, Object value) {
        properties.put(name, value);
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        redis = RedisProcess.start();
        backend = Backend.start();
        Map<String, Object> all = GatewayInstance.defaults(redis, backend.baseUrl(), queue);
        all.putAll(properties);
        int index = 1;
        for (Map.Entry<String, Map<String, Object>> route : extraRoutes.entrySet()) {
            String prefix = "spring.cloud.gateway.server.webflux.routes[" + index++ + "].";
            all.put(prefix + "id", route.getKey());
            all.put(prefix + "uri", backend.baseUrl());
            route.getValue().forEach((name, value) -> all.put(prefix + name, value));
        }
        for (int i = 0; i < instances; i++) {
            gateways.add(GatewayInstance.start(all));
        }
        for (Map<String, Object> differing : overrides) {
            Map<String, Object> own = new LinkedHashMap<>(all);
            own.putAll(differing);
            gateways.add(GatewayInstance.start(own));
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        redis.flushAll();
        // Each instance's view of the lines is up to a second old: of the data just flushed.
        gateways.forEach(GatewayInstance::forgetRedis);
        backend.resetRequests();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        // The gateways first: Redis going away under a running gateway only makes noise.
        GatewayInstance.closeAll(gateways);
        if (backend != null) {
            backend.stop();
        }
        if (redis != null) {
            redis.close();
        }
    }

    public RedisProcess redis() {
        return redis;
    }

    /**
     * The keys in Redis but for what instances write in the background: the epochs they saw
     * ({@code qg:epochs}, again whenever one reconnects) and the activity index ({@code qg:activity},
     * flushed a moment after the requests of an earlier test). What a request leaves behind of its
     * own is the product's keys, and those count.
     */
    public List<String> keysLeft() {
        return redis.commands().keys("*").stream()
                .filter(key -> !key.equals(RedisEpoch.HISTORY_KEY) && !key.equals(QueueKeys.ACTIVITY))
                .toList();
    }

    public WireMockServer backend() {
        return backend;
    }

    public GatewayInstance gateway() {
        return gateways.get(0);
    }

    /** The {@code index}th instance, from 0. */
    public GatewayInstance gateway(int index) {
        return gateways.get(index);
    }

    public WebTestClient client() {
        return gateway().client();
    }
}
