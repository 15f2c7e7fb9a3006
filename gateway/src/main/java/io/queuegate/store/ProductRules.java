package io.queuegate.store;

import java.time.Duration;
import java.time.Instant;

/**
 * A product's rules as the join script stores them with the queue, so promotions without a
 * request (scheduler, listeners, operators) follow them too.
 *
 * @param strategy the promotion strategy's id
 * @param opensAt {@code null} for a queue that is always open
 * @param closesAt {@code null} for never
 * @param maxAdmitPerMinute 0 for no limit
 * @param abandonAfter {@link Duration#ZERO} for never
 * @param unitsPerShopper how many units one admission may buy
 * @param stock the product's stock setting (units), applied when it first comes or changes;
 *              {@code null} for none
 */
public record ProductRules(int maxActive, Duration sessionTtl, String strategy, Instant opensAt, Instant closesAt,
        int maxAdmitPerMinute, Duration abandonAfter, Duration arrivalTtl, int unitsPerShopper, Long stock) {

    /** Rules without a stock setting, one unit a shopper. */
    public ProductRules(int maxActive, Duration sessionTtl, String strategy, Instant opensAt, Instant closesAt,
            int maxAdmitPerMinute, Duration abandonAfter, Duration arrivalTtl) {
        this(maxActive, sessionTtl, strategy, opensAt, closesAt, maxAdmitPerMinute, abandonAfter, arrivalTtl, 1, null);
    }

    /** Plain queue rules: always open, unpaced, no one abandoned, the whole session to arrive. */
    public static ProductRules plain(int maxActive, Duration sessionTtl, String strategy) {
        return new ProductRules(maxActive, sessionTtl, strategy, null, null, 0, Duration.ZERO, sessionTtl);
    }

    /** Whether promotion runs on a clock of its own: a sale to open, or a pace to keep. */
    public boolean isTimed() {
        return opensAt != null || maxAdmitPerMinute > 0;
    }
}
