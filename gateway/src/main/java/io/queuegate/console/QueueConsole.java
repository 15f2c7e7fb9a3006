package io.queuegate.console;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.BooleanSupplier;

import io.queuegate.config.QueueGateProperties;
import io.queuegate.ops.Periodically;
import io.queuegate.ops.QueueDirectory;
import io.queuegate.ops.QueuesEndpoint;
import io.queuegate.ops.QueuesEndpoint.QueueView;
import io.queuegate.ops.WaitPercentiles;
import io.queuegate.routes.RouteQueuePolicies;
import io.queuegate.routes.RouteQueuePolicies.ProductLabel;
import io.queuegate.store.ProductQueues;
import io.queuegate.store.QueueSnapshot;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What the operator console shows: every product it follows, read from Redis in the background
 * every {@code queuegate.console.sample-interval} (the list is sorted and filtered from memory,
 * and each product keeps its admission rate over the history window for the chart), and the page
 * an operator looks at read again on each poll, so its numbers are live. Reads only: every change
 * goes through the {@code queues} endpoint.
 */
public class QueueConsole implements SmartLifecycle {

    private static final Log log = LogFactory.getLog(QueueConsole.class);

    /** Products read at once; bounds the Redis load of a large list (as the gauges do). */
    private static final int CONCURRENCY = 8;

    /** The largest page the console asks for. */
    public static final int MAX_PAGE_SIZE = 100;

    private final ProductQueues store;
    private final QueueDirectory directory;
    private final RouteQueuePolicies policies;
    private final WaitPercentiles waits;
    private final QueueGateProperties.Console properties;
    private final BooleanSupplier writable;
    private final Clock clock;
    private final FollowedProducts followed;
    private final Periodically periodically;

    /**
     * @param writable whether the {@code queues} endpoint takes actions (exposed, and its access
     *                 is not read-only): the console offers them only then
     */
    public QueueConsole(ProductQueues store, QueueDirectory directory, RouteQueuePolicies policies,
            WaitPercentiles waits, QueueGateProperties.Console properties, BooleanSupplier writable, Clock clock) {
        this.store = store;
        this.directory = directory;
        this.policies = policies;
        this.waits = waits;
        this.properties = properties;
        this.writable = writable;
        this.clock = clock;
        this.followed = new FollowedProducts(store, directory, properties, clock);
        this.periodically = new Periodically(properties.sampleInterval(), this::sample, log,
                "Console sample failed; keeping the last values");
    }

    /** Reads every listed and followed product once, and adds a point to each chart. */
    public Mono<Void> sample() {
        long now = clock.millis();
        return directory.products(properties.maxProducts())
                .concatWith(Flux.fromIterable(followed.ids()))
                .distinct()
                .flatMap(productId -> store.snapshot(productId)
                        .doOnNext(snapshot -> followed.record(productId, snapshot, now, true))
                        // One product's failed read keeps its last values; the others still count.
                        .onErrorResume(error -> {
                            log.debug("Console sample of product " + productId + " failed: " + error);
                            return Mono.empty();
                        }), CONCURRENCY)
                .then();
    }

    /**
     * One page of the list, its products read again from Redis.
     *
     * @param filter part of a product id or display-name (any case); an exact product id the
     *               console does not follow yet is looked up
     * @param sort {@code waiting} (most first; the default) or {@code product}
     * @param page 1-based
     * @param size products per page, 1 to {@value #MAX_PAGE_SIZE}
     */
    public Mono<Page> page(String filter, String sort, int page, int size) {
        String wanted = filter == null ? "" : filter.strip();
        String order = "product".equals(sort) ? "product" : "waiting";
        int pageSize = Math.max(1, Math.min(MAX_PAGE_SIZE, size));
        return followed.lookUp(wanted).then(Mono.defer(() -> {
            long now = clock.millis();
            String needle = wanted.toLowerCase(Locale.ROOT);
            List<Row> rows = new ArrayList<>();
            followed.forEachRead((productId, latest) -> {
                ProductLabel label = policies.label(productId);
                if (needle.isEmpty() || productId.toLowerCase(Locale.ROOT).contains(needle)
                        || (label.displayName() != null && label.displayName().toLowerCase(Locale.ROOT).contains(needle))) {
                    rows.add(new Row(productId, label, latest, true));
                }
            });
            rows.sort(comparator(order));
            int pages = Math.max(1, (rows.size() + pageSize - 1) / pageSize);
            int current = Math.max(1, Math.min(pages, page));
            List<Row> visible = rows.subList((current - 1) * pageSize, Math.min(rows.size(), current * pageSize));
            return Flux.fromIterable(List.copyOf(visible))
                    .flatMapSequential(row -> store.snapshot(row.productId())
                            .doOnNext(snapshot -> followed.record(row.productId(), snapshot, now, false))
                            .map(snapshot -> new Row(row.productId(), row.label(), snapshot, true))
                            .onErrorResume(error -> Mono.just(new Row(row.productId(), row.label(), row.snapshot(),
                                    false))), CONCURRENCY)
                    .collectList()
                    .map(fresh -> {
                        List<Row> sorted = new ArrayList<>(fresh);
                        sorted.sort(comparator(order));
                        boolean stale = sorted.stream().anyMatch(row -> !row.fresh());
                        long from = now - properties.history().toMillis();
                        List<ProductView> products = sorted.stream().map(row -> view(row, from)).toList();
                        return new Page(Instant.ofEpochMilli(now), properties.sampleInterval().toSeconds(),
                                properties.history().toSeconds(), writable.getAsBoolean(), wanted, order, current,
                                pageSize, rows.size(), pages, stale, products);
                    });
        }));
    }

    private ProductView view(Row row, long from) {
        double[][] history = followed.history(row.productId(), from);
        WaitPercentiles.Waits timed = waits.of(row.productId());
        return new ProductView(row.productId(), row.label().displayName(), row.label().opensAt(),
                QueuesEndpoint.view(row.productId(), row.snapshot()), timed.p50Seconds(), timed.p90Seconds(),
                timed.count(), history);
    }

    private static Comparator<Row> comparator(String order) {
        Comparator<Row> byId = Comparator.comparing(Row::productId);
        if ("product".equals(order)) {
            return byId;
        }
        return Comparator.comparingLong((Row row) -> row.snapshot() == null ? -1 : row.snapshot().waiting()).reversed()
                .thenComparing(Comparator.comparingLong((Row row) -> row.snapshot() == null ? -1 : row.snapshot().active())
                        .reversed())
                .thenComparing(byId);
    }

    @Override
    public void start() {
        periodically.start();
    }

    @Override
    public void stop() {
        periodically.stop();
    }

    @Override
    public boolean isRunning() {
        return periodically.isRunning();
    }

    private record Row(String productId, ProductLabel label, QueueSnapshot snapshot, boolean fresh) {
    }

    /**
     * One page of the console's list.
     *
     * @param sampleIntervalSeconds how far apart the chart's points are
     * @param historySeconds how far back the chart goes
     * @param writable whether the {@code queues} endpoint takes actions; the console hides them otherwise
     * @param total the products that match the filter
     * @param stale whether some product could not be read again now (Redis did not answer): its
     *              numbers are the last sample's
     */
    public record Page(Instant generatedAt, long sampleIntervalSeconds, long historySeconds, boolean writable,
            String filter, String sort, int page, int size, int total, int pages, boolean stale,
            List<ProductView> products) {
    }

    /**
     * One product on the console.
     *
     * @param displayName its display-name, or {@code null}
     * @param opensAt when its scheduled sale opens (configured), or {@code null}
     * @param queue the product as {@code /actuator/queues/{productId}} shows it
     * @param waitP50Seconds the median time in queue of those this instance admitted after a wait
     * @param waitP90Seconds the 90th percentile of the same
     * @param waitsTimed how many waits the percentiles are of
     * @param admissionRates {@code [epochSecond, admissions per second]}, oldest first
     */
    public record ProductView(String productId, String displayName, Instant opensAt, QueueView queue,
            Double waitP50Seconds, Double waitP90Seconds, long waitsTimed, double[][] admissionRates) {
    }
}
