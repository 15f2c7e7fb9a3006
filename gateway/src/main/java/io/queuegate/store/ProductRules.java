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
 */
public record ProductRules(int maxActive, Duration sessionTtl, String strategy, Instant opensAt, Instant closesAt,
        int maxAdmitPerMinute, Duration abandonAfter, Duration arrivalTtl) {

    /** Plain queue rules: always open, unpaced, no one abandoned, the whole session to arrive. */
    public static ProductRules plain(int maxActive, Duration sessionTtl, String strategy) {
        return new ProductRules(maxActive, sessionTtl, strategy, null, null, 0, Duration.ZERO, sessionTtl);
    }

    /** Whether promotion runs on a clock of its own: a sale to open, or a pace to keep. */
    public boolean isTimed() {
        return opensAt != null || maxAdmitPerMinute > 0;
    }
}
