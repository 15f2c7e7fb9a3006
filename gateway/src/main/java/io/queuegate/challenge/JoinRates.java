package io.queuegate.challenge;

import java.time.Clock;
import java.time.Duration;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * How many places each client network made on each product in the last hour, as this instance
 * saw them: what makes a proof of work dearer for a network that takes many places. The hour
 * slides in {@link #STEP}s: a place counts from when it is made until an hour later, or up to one
 * step more, never less, so there is no boundary at which a network starts afresh. Kept in memory
 * only (no Redis write per join): with N instances behind a load balancer each sees about one Nth
 * of a network's places. Bounded: past {@link #MAX_ENTRIES} networks and products the oldest go
 * first, never everyone, and each holds {@link #STEPS} counts, whatever its rate.
 */
public final class JoinRates {

    static final int MAX_ENTRIES = 100_000;

    /** The window the places are counted over. */
    static final Duration WINDOW = Duration.ofHours(1);

    /** How finely the window slides: a place leaves the count between one window and one step after it was made. */
    static final Duration STEP = Duration.ofMinutes(5);

    /** The steps a count keeps: the window's, and the one it is in now. */
    static final int STEPS = (int) (WINDOW.toMillis() / STEP.toMillis()) + 1;

    private record Key(String network, String productId) {
    }

    /**
     * The places of the {@link #STEPS} steps up to {@code newest} (a step's number: epoch millis
     * over {@link #STEP}), each in {@code places[step % STEPS]}. Never changed once made: a
     * reader sees one whole count while another request adds a place.
     */
    private static final class Steps {

        private final long newest;
        private final int[] places;

        private Steps(long newest, int[] places) {
            this.newest = newest;
            this.places = places;
        }

        /** The places of the steps from {@code step - STEPS + 1} to {@code step}. */
        int within(long step) {
            int total = 0;
            for (long counted = Math.max(newest - STEPS + 1, step - STEPS + 1); counted <= newest; counted++) {
                total += places[(int) (counted % STEPS)];
            }
            return total;
        }

        /** These places and one more in {@code step}; steps that left the window count nothing again. */
        Steps plus(long step) {
            if (step < newest - STEPS + 1) {
                // A clock read long before the newest place: it counts with the oldest still in.
                step = newest - STEPS + 1;
            }
            int[] next = places.clone();
            long from = Math.max(newest + 1, step - STEPS + 1);
            for (long fresh = from; fresh <= step; fresh++) {
                next[(int) (fresh % STEPS)] = 0;
            }
            next[(int) (step % STEPS)]++;
            return new Steps(Math.max(newest, step), next);
        }

        static Steps first(long step) {
            int[] places = new int[STEPS];
            places[(int) (step % STEPS)] = 1;
            return new Steps(step, places);
        }
    }

    private final Clock clock;
    private final Cache<Key, Steps> counts = Caffeine.newBuilder()
            .maximumSize(MAX_ENTRIES)
            // A count whose newest place is older than this holds nothing that counts.
            .expireAfterWrite(WINDOW.plus(STEP))
            .build();

    public JoinRates(Clock clock) {
        this.clock = clock;
    }

    /** The places the network made on the product within the last hour (and up to a step more). */
    public int places(String network, String productId) {
        Steps steps = counts.getIfPresent(new Key(network, productId));
        return steps == null ? 0 : steps.within(step());
    }

    /** The network made a place on the product. */
    public void placed(String network, String productId) {
        long step = step();
        counts.asMap().compute(new Key(network, productId),
                (key, old) -> old == null ? Steps.first(step) : old.plus(step));
    }

    private long step() {
        return clock.millis() / STEP.toMillis();
    }
}
