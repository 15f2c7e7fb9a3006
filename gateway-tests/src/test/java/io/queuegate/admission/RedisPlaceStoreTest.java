package io.queuegate.admission;

import java.util.Map;

import io.queuegate.store.PlaceStore;
import io.queuegate.store.ProductQueues;
import io.queuegate.support.GatewayFixture;

import org.junit.jupiter.api.extension.RegisterExtension;

/** The store the gateway runs on, Redis through its scripts, answers as {@link PlaceStoreContract} says. */
class RedisPlaceStoreTest extends PlaceStoreContract {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of());

    @Override
    PlaceStore store() {
        return fixture.gateway().bean(ProductQueues.class);
    }
}
