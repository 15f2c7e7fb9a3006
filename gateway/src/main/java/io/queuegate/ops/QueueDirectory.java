package io.queuegate.ops;

import java.util.Comparator;
import java.util.Set;

import io.queuegate.store.ProductQueues;
import io.queuegate.store.ProductRegistry;
import io.queuegate.store.QueueSnapshot;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The products operators see, most important first: those with the most shoppers waiting, then
 * the most admitted, then the configured ones ({@code queuegate.products}), at most {@code max}.
 * The candidates are the configured products, those with people in line ({@code qg:products}) and
 * the most recently active ({@code qg:activity}, which includes products with admitted shoppers
 * and nobody waiting), each read once ({@code snapshot.lua}) to be ranked. A flood of invented
 * product ids cannot push a busy product out: each of them has nobody waiting and at most one
 * session, and a busy product stays among the most recently active.
 */
public class QueueDirectory {

    /** Candidates read per product listed: enough to find the busy ones among many idle ones. */
    static final int CANDIDATES_PER_PLACE = 5;

    /** Products read at once. */
    private static final int CONCURRENCY = 8;

    private final ProductRegistry registry;
    private final ProductQueues store;
    private final Set<String> configured;
    private final int max;

    public QueueDirectory(ProductRegistry registry, ProductQueues store, Set<String> configured, int max) {
        this.registry = registry;
        this.store = store;
        this.configured = Set.copyOf(configured);
        this.max = max;
    }

    /** The products operators see, ranked, at most {@code max}. */
    public Flux<String> products() {
        return products(max);
    }

    /** Like {@link #products()}, with a bound of the caller's (the console lists more than the metrics tag). */
    public Flux<String> products(int limit) {
        return ranked(limit).map(Ranked::productId);
    }

    /** The products ranked with what was read of each, at most {@code limit}. */
    public Flux<Ranked> ranked(int limit) {
        int candidates = limit * CANDIDATES_PER_PLACE;
        return Flux.fromIterable(configured.stream().sorted().toList())
                .concatWith(registry.products().take(candidates))
                .concatWith(registry.recentlyActive(candidates))
                .distinct()
                .take(configured.size() + 2L * candidates)
                .flatMap(productId -> store.snapshot(productId).map(snapshot -> new Ranked(productId, snapshot))
                        .onErrorResume(error -> Mono.empty()), CONCURRENCY)
                .filter(ranked -> ranked.snapshot().known() || isConfigured(ranked.productId()))
                .sort(Comparator.comparingLong((Ranked ranked) -> -ranked.snapshot().waiting())
                        .thenComparingLong(ranked -> -ranked.snapshot().active())
                        .thenComparing(ranked -> !isConfigured(ranked.productId()))
                        .thenComparing(Ranked::productId))
                .take(limit);
    }

    /** A product and what was read of it. */
    public record Ranked(String productId, QueueSnapshot snapshot) {
    }

    public boolean isConfigured(String productId) {
        // Configured ids are kept in lower case; a route that keeps case may spell them otherwise.
        return configured.contains(productId) || configured.contains(productId.toLowerCase(java.util.Locale.ROOT));
    }

    public int max() {
        return max;
    }
}
