package io.queuegate.ops;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of QueueGate's metrics and of the {@code queues} endpoint, under {@code queuegate.metrics}.
 *
 * @param maxProducts products that get their own {@code product} tag and gauges, and that the
 *                    {@code queues} endpoint lists; further products are tagged {@code (other)}.
 *                    Product ids come from request paths, so without a bound a client inventing
 *                    ids could grow the metrics without end
 * @param refreshInterval how often the {@code queuegate.waiting} and {@code queuegate.active}
 *                        gauges are read from Redis (a scrape itself never calls Redis)
 */
@ConfigurationProperties("queuegate.metrics")
public record QueueGateMetricsProperties(@DefaultValue("200") int maxProducts,
        @DefaultValue("10s") Duration refreshInterval) {

    public QueueGateMetricsProperties {
        if (maxProducts < 1) {
            throw new IllegalArgumentException("queuegate.metrics.max-products must be at least 1, was " + maxProducts);
        }
        if (refreshInterval.isNegative() || refreshInterval.isZero()) {
            throw new IllegalArgumentException("queuegate.metrics.refresh-interval must be positive");
        }
    }
}
