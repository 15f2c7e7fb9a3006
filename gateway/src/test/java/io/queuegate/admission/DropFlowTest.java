package io.queuegate.admission;

import java.util.Map;

import io.queuegate.support.GatewayFixture;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class DropFlowTest {
    static final long LOADED = System.currentTimeMillis();

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1"))
            .instances(2).with("management.endpoints.web.exposure.include", "health,queues")
            .with("queuegate.page.heartbeat", "1s");

    @BeforeAll
    static void t() {
        System.out.println("PROBE startup ms " + (System.currentTimeMillis() - LOADED));
    }

    @Test
    void probe() {
        fixture.client().get().uri("/api/products/x").exchange().expectStatus().isOk().expectBody().returnResult();
        System.out.println("PROBE first request ms " + (System.currentTimeMillis() - LOADED));
        for (int i = 0; i < 3; i++) {
            long t0 = System.currentTimeMillis();
            try (var g = io.queuegate.support.GatewayInstance.start(io.queuegate.support.GatewayInstance.defaults(fixture.redis(), fixture.backend().baseUrl(), Map.of("max-active", "1")))) {
                System.out.println("PROBE warm start ms " + (System.currentTimeMillis() - t0));
                g.client().get().uri("/api/products/y").exchange().expectBody().returnResult();
                System.out.println("PROBE warm first request ms " + (System.currentTimeMillis() - t0));
            }
        }
    }
}
