package io.queuegate.ops;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the operator console ({@code /actuator/queueconsole}), under {@code queuegate.console}.
 *
 * @param sampleInterval how often every listed product is read from Redis for the console's list
 *                       and its admission-rate chart; default 10s
 * @param history how far back the chart goes; default 30m. The console keeps
 *                {@code history / sample-interval} points per product in memory
 * @param maxProducts the most products the console follows; default 5000. Unlike
 *                    {@code queuegate.metrics.max-products} this bounds no time series, only
 *                    this instance's memory (about 1.5 KB a product at the defaults) and the reads
 *                    of each sample
 */
@ConfigurationProperties("queuegate.console")
public record QueueConsoleProperties(@DefaultValue("10s") Duration sampleInterval,
        @DefaultValue("30m") Duration history, @DefaultValue("5000") int maxProducts) {

    /** Points per product beyond which a chart says nothing more and only costs memory. */
    static final int MAX_POINTS = 2_000;

    public QueueConsoleProperties {
        if (sampleInterval.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("queuegate.console.sample-interval must be at least 1s, was "
                    + sampleInterval);
        }
        if (history.compareTo(sampleInterval) < 0) {
            throw new IllegalArgumentException("queuegate.console.history (" + history
                    + ") must be at least queuegate.console.sample-interval (" + sampleInterval + ")");
        }
        if (history.toMillis() / sampleInterval.toMillis() > MAX_POINTS) {
            throw new IllegalArgumentException("queuegate.console.history / sample-interval must be at most "
                    + MAX_POINTS + " points, was " + history.toMillis() / sampleInterval.toMillis());
        }
        if (maxProducts < 1) {
            throw new IllegalArgumentException("queuegate.console.max-products must be at least 1, was " + maxProducts);
        }
    }

    /** Points each product's chart holds. */
    int points() {
        return (int) Math.max(2, history.toMillis() / sampleInterval.toMillis() + 1);
    }
}
