package io.queuegate.app;

import java.util.LinkedHashMap;
import java.util.Map;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.RedisProcess;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test class's runnable gateway: one real Redis, a shop stub, and the runnable gateway with its
 * own configuration ({@link RunnableGateway#properties}) plus the class's properties, started once
 * for the class and stopped after it. Register it as
 * {@code @RegisterExtension static final RunnableGatewayFixture fixture = RunnableGatewayFixture.create().with(...)}.
 */
final class RunnableGatewayFixture implements BeforeAllCallback, AfterAllCallback {

    private final Map<String, Object> properties = new LinkedHashMap<>();
    private final Map<String, String> openRoutes = new LinkedHashMap<>();
    private RedisProcess redis;
    private WireMockServer shop;
    private RunnableGateway gateway;

    private RunnableGatewayFixture() {
    }

    static RunnableGatewayFixture create() {
        return new RunnableGatewayFixture();
    }

    /** Adds a gateway property. */
    RunnableGatewayFixture with(String name, Object value) {
        properties.put(name, value);
        return this;
    }

    /** Adds a route to the shop after the product route, without a {@code queue} block. */
    RunnableGatewayFixture withOpenRoute(String id, String path) {
        openRoutes.put(id, path);
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        redis = RedisProcess.start();
        shop = Backend.start();
        Map<String, Object> all = RunnableGateway.properties(redis, shop.baseUrl());
        all.putAll(properties);
        int index = 1;
        for (Map.Entry<String, String> route : openRoutes.entrySet()) {
            String prefix = "spring.cloud.gateway.server.webflux.routes[" + index++ + "].";
            all.put(prefix + "id", route.getKey());
            all.put(prefix + "uri", shop.baseUrl());
            all.put(prefix + "predicates[0]", "Path=" + route.getValue());
        }
        gateway = RunnableGateway.start(all);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        // The gateway first: Redis going away under a running gateway only makes noise.
        if (gateway != null) {
            gateway.close();
        }
        if (shop != null) {
            shop.stop();
        }
        if (redis != null) {
            redis.close();
        }
    }

    RedisProcess redis() {
        return redis;
    }

    WireMockServer shop() {
        return shop;
    }

    RunnableGateway gateway() {
        return gateway;
    }
}
