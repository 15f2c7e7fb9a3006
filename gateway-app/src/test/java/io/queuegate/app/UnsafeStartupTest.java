package io.queuegate.app;

import java.util.Map;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.FreePorts;
import io.queuegate.support.RedisProcess;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Configurations the runnable gateway refuses to start with, because they would let anyone who
 * reaches the shopper port steer the waiting room or claim another shopper's identity. Each test
 * starts a gateway of its own (a failed start closes the server's shared resources, which a
 * gateway kept running beside it would lose).
 */
class UnsafeStartupTest {

    private static RedisProcess redis;
    private static WireMockServer shop;

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        shop = Backend.start();
    }

    @AfterAll
    static void stop() {
        shop.stop();
        redis.close();
    }

    @Test
    void theOperationsSurfaceOnTheShopperPortStopsTheStart() {
        Map<String, Object> samePort = onePort(RunnableGateway.properties(redis, shop.baseUrl()));
        assertThatThrownBy(() -> RunnableGateway.start(samePort).close())
                .hasStackTraceContaining("The shopper port (server.port) serves the queues endpoint")
                .hasStackTraceContaining("management.server.port");
    }

    @Test
    void aWritableGatewayEndpointOnTheShopperPortStopsTheStartToo() {
        Map<String, Object> writable = onePort(RunnableGateway.properties(redis, shop.baseUrl()));
        writable.put("management.endpoints.web.exposure.include", "health,gateway");
        writable.put("management.endpoint.gateway.access", "unrestricted");
        assertThatThrownBy(() -> RunnableGateway.start(writable).close())
                .hasStackTraceContaining("a writable gateway endpoint");
    }

    @Test
    void allowPublicPortIsTheOneWayToStartWithThemPublic() {
        Map<String, Object> insisted = onePort(RunnableGateway.properties(redis, shop.baseUrl()));
        insisted.put("queuegate.operations.allow-public-port", "true");
        try (RunnableGateway started = RunnableGateway.start(insisted)) {
            assertThat(started.shopper("GET", "/actuator/queues").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void headerIdentityRefusesToStartWhenTheServerBelievesForwardedHeaders() {
        Map<String, Object> spoofable = RunnableGateway.properties(redis, shop.baseUrl());
        spoofable.put("queuegate.identity.source", "header");
        spoofable.put("queuegate.trusted-proxies[0]", "10.0.0.0/8");
        spoofable.put("server.forward-headers-strategy", "native");
        assertThatThrownBy(() -> RunnableGateway.start(spoofable).close())
                .hasStackTraceContaining("server.forward-headers-strategy resolves to 'native'");
    }

    /** The actuator on the shopper port: both ports the same free port. */
    private static Map<String, Object> onePort(Map<String, Object> properties) {
        String port = Integer.toString(FreePorts.one());
        properties.put("server.port", port);
        properties.put("management.server.port", port);
        return properties;
    }
}
