package io.queuegate.challenge;

import java.time.Clock;
import java.time.Duration;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * How many places each client network made on each product in the last minute, as this instance
 * saw them: what makes a proof of work dearer for a network that takes many places. Kept in memory
 * only (no Redis write per join): with N instances behind a load balancer each sees about one Nth
 * of a network's places. Bounded: past {@link #MAX_ENTRIES} the oldest go first, never everyone.
 */
public final class JoinRates {

    static final int MAX_ENTRIES = 100_000;

    /** The window the rate is counted over. */
    static final Duration WINDOW = Duration.ofMinutes(1);

    private record Key(String network, String productId) {
    }

    /** The places of one window that began at {@code start}. */
    private record Window(long start, int places) {
    }

    private final Clock clock;
    private final Cache<Key, Window> windows = Caffeine.newBuilder()
            .maximumSize(MAX_ENTRIES)
            .expireAfterWrite(WINDOW.multipliedBy(2))
            .build();

    public JoinRates(Clock clock) {
        this.clock = clock;
    }

    /** The places the network made on the product within the current window. */
    public int places(String network, String productId) {
        Window window = windows.getIfPresent(new Key(network, productId));
        return window == null || clock.millis() - window.start() >= WINDOW.toMillis() ? 0 : window.places();
    }

    /** The network made a place on the product. */
    public void placed(String network, String productId) {
        long now = clock.millis();
        windows.asMap().compute(new Key(network, productId), (key, old) -> old == null
                || now - old.start() >= WINDOW.toMillis() ? new Window(now, 1) : new Window(old.start(), old.places() + 1));
    }
}
