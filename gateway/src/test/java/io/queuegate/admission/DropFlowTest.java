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
    }
}
