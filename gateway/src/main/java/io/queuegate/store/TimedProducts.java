package io.queuegate.store;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The products this instance knows to run on a clock of their own (a sale to open at its time,
 * a pace to keep): no freed place announces that such a product's admission has become due, so
 * the scheduler promotes them every {@link #PERIOD}. An instance learns of them from joins, status
 * reads and safety-net passes, so one started during a sale takes up the clock within a poll.
 */
public final class TimedProducts {

    /** How often timed products are promoted. */
    public static final Duration PERIOD = Duration.ofMillis(250);

    private final Set<String> products = ConcurrentHashMap.newKeySet();

    public void add(String productId) {
        products.add(productId);
    }

    /** Forgets a timed product nobody waits for any more. */
    public void forget(String productId) {
        products.remove(productId);
    }

    public List<String> snapshot() {
        return List.copyOf(products);
    }
}
