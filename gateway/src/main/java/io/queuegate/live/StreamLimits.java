package io.queuegate.live;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Caps the live event streams one instance holds open per shopper and per client address
 * ({@code queuegate.events.*}): a stream costs the gateway a connection and memory for as long as
 * it is open, so one token, or one address, must not be able to open thousands.
 */
public final class StreamLimits {

    private final int maxPerShopper;
    private final int maxPerAddress;
    private final Map<String, AtomicInteger> open = new ConcurrentHashMap<>();

    public StreamLimits(int maxPerShopper, int maxPerAddress) {
        this.maxPerShopper = maxPerShopper;
        this.maxPerAddress = maxPerAddress;
    }

    /**
     * Takes a place for one more stream of this shopper from this network.
     *
     * @param network the client's address as per-address limits count it (an IPv6 /64 as one)
     * @return the lease to close when the stream ends, or {@code null} when a limit is reached
     */
    public Lease open(String productId, String userId, String network) {
        String shopper = "s\u0000" + productId + '\u0000' + userId;
        String address = "a\u0000" + network;
        if (!take(shopper, maxPerShopper)) {
            return null;
        }
        if (!take(address, maxPerAddress)) {
            give(shopper);
            return null;
        }
        return new Lease(shopper, address);
    }

    /** How many streams are open for this key (for tests). */
    int count(String key) {
        AtomicInteger count = open.get(key);
        return count == null ? 0 : count.get();
    }

    private boolean take(String key, int max) {
        boolean[] taken = new boolean[1];
        open.compute(key, (k, count) -> {
            AtomicInteger current = count == null ? new AtomicInteger() : count;
            if (current.get() < max) {
                current.incrementAndGet();
                taken[0] = true;
            }
            return current;
        });
        return taken[0];
    }

    private void give(String key) {
        // Removing at zero keeps the table as small as the number of open streams.
        open.computeIfPresent(key, (k, count) -> count.decrementAndGet() <= 0 ? null : count);
    }

    /** One open stream's places; closing it more than once gives them back once. */
    public final class Lease {

        private final String shopper;
        private final String address;
        private final AtomicBoolean closed = new AtomicBoolean();

        private Lease(String shopper, String address) {
            this.shopper = shopper;
            this.address = address;
        }

        public void close() {
            if (closed.compareAndSet(false, true)) {
                give(shopper);
                give(address);
            }
        }
    }
}
