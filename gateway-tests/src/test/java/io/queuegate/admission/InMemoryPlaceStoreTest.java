package io.queuegate.admission;

import java.time.Clock;
import java.util.Set;

import io.queuegate.store.PlaceStore;

/** The in-memory store admission's unit tests use answers as the scripts do ({@link PlaceStoreContract}). */
class InMemoryPlaceStoreTest extends PlaceStoreContract {

    private final InMemoryPlaceStore store = new InMemoryPlaceStore(Clock.systemUTC(), Set.of());

    @Override
    PlaceStore store() {
        return store;
    }
}
