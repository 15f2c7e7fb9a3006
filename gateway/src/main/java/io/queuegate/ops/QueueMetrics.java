package io.queuegate.ops;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.queuegate.events.Decision;
import io.queuegate.events.QueueEvents;
import io.queuegate.events.RedisOperation;
import io.queuegate.events.StockSource;
import io.queuegate.events.Trigger;

/**
 * Counts queue events as Micrometer meters named {@code queuegate.*} (see docs/operations.md's metrics
 * table). Only in-memory work per event: no Redis call, nothing that blocks.
 */
public class QueueMetrics implements QueueEvents {

    private final MeterRegistry registry;
    private final ProductTags products;
    /** Meters by name and tags; bounded because product tags are ({@link ProductTags}). */
    private final Map<String, Meter> meters = new ConcurrentHashMap<>();
    /** The decision timers by route, then outcome. */
    private final Map<String, Map<Decision, Timer>> decisions = new ConcurrentHashMap<>();

    public QueueMetrics(MeterRegistry registry, ProductTags products) {
        this.registry = registry;
        this.products = products;
        products.onEvicted(this::forget);
    }

    /** The product's tag went to another product: its counters and timers go, so series stay bounded. */
    private void forget(String productId) {
        meters.values().removeIf(meter -> {
            if (productId.equals(meter.getId().getTag("product"))) {
                registry.remove(meter);
                return true;
            }
            return false;
        });
        registry.find("queuegate.wait").tag("product", productId).meters().forEach(registry::remove);
    }

    @Override
    public void joined(String productId, String routeId, String userId, long rank) {
        counter("queuegate.joins", "Users who took a new place in line (or were admitted at once)",
                "product", products.of(productId), "route", routeId).increment();
    }

    @Override
    public void promoted(String productId, Trigger trigger, long promoted) {
        counter("queuegate.admissions", "Users moved into the active set, by what moved them",
                "product", products.of(productId), "trigger", trigger.value()).increment(promoted);
    }

    @Override
    public void abandoned(String productId, Trigger trigger, long abandoned) {
        counter("queuegate.abandoned", "Users dropped from the line, not seen for abandon-after when promotion reached them",
                "product", products.of(productId)).increment(abandoned);
    }

    @Override
    public void admitted(String productId, String routeId, String userId, Duration waited) {
        Timer.builder("queuegate.wait")
                .description("Time from joining the line to being admitted, of users who waited")
                .tags("product", products.of(productId), "route", routeId)
                .publishPercentileHistogram()
                // Waits are seconds to hours; bounding the buckets keeps the series per product few.
                .minimumExpectedValue(Duration.ofSeconds(1))
                .maximumExpectedValue(Duration.ofHours(6))
                .register(registry)
                .record(waited);
    }

    @Override
    public void completed(String productId, String routeId, String userId) {
        counter("queuegate.completions", "Sessions ended by a successful complete-on request",
                "product", products.of(productId), "route", routeId).increment();
    }

    @Override
    public void stockChanged(String productId, long unitsLeft, StockSource by, boolean soldOut) {
        if (soldOut) {
            counter("queuegate.sold.out", "Times a product's stock ran out (nobody new is admitted until a restock)",
                    "product", products.of(productId)).increment();
        }
    }

    @Override
    public void left(String productId, String userId) {
        counter("queuegate.leaves", "Users who gave up their place", "product", products.of(productId)).increment();
    }

    @Override
    public void expired(String productId, String userId) {
        counter("queuegate.expiries", "Sessions freed by Redis's expiry event (promotion: keyspace)",
                "product", products.of(productId)).increment();
    }

    @Override
    public void redisFailure(String productId, RedisOperation operation, Throwable error) {
        counter("queuegate.redis.failures", "Redis calls that failed, timed out or met the open circuit breaker",
                "product", products.of(productId), "operation", operation.value()).increment();
    }

    @Override
    public void failOpenPass(String productId, String routeId) {
        counter("queuegate.failopen.passes", "Requests forwarded unchecked because Redis could not answer",
                "product", products.of(productId), "route", routeId).increment();
    }

    @Override
    public void rejected(String routeId, String code) {
        // No product tag: a rejected request's product id may be the invalid part.
        counter("queuegate.rejections", "Requests answered with a contract error", "route", routeId, "error", code)
                .increment();
    }

    @Override
    public void decided(String routeId, Decision outcome, Duration took) {
        // Every protected request lands here: two map reads, no key built per request.
        decisions.computeIfAbsent(routeId, route -> new ConcurrentHashMap<>())
                .computeIfAbsent(outcome, key -> Timer.builder("queuegate.decision")
                        .description("Latency of the admission filter's decision, Redis included")
                        .tags("route", routeId, "outcome", outcome.value())
                        .publishPercentileHistogram()
                        .minimumExpectedValue(Duration.ofMillis(1))
                        .maximumExpectedValue(Duration.ofSeconds(10))
                        .register(registry))
                .record(took);
    }

    private Counter counter(String name, String description, String... tags) {
        return (Counter) meters.computeIfAbsent(name + '\u0000' + String.join("\u0000", tags),
                key -> Counter.builder(name).description(description).tags(tags).register(registry));
    }
}
