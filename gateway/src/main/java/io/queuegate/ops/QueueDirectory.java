package io.queuegate.ops;

import java.util.Set;

import io.queuegate.store.ProductRegistry;

import reactor.core.publisher.Flux;

/**
 * The products operators see: those configured under {@code queuegate.products} and those in the
 * registry {@code qg:products} (products with people in line), at most {@code max} in all.
 */
public class QueueDirectory {

    private final ProductRegistry registry;
    private final Set<String> configured;
    private final int max;

    public QueueDirectory(ProductRegistry registry, Set<String> configured, int max) {
        this.registry = registry;
        this.configured = Set.copyOf(configured);
        this.max = max;
    }

    /** Configured products first, then the registry's, without repeats, at most {@code max}. */
    public Flux<String> products() {
        return products(max);
    }

    /** Like {@link #products()}, with a bound of the caller's (the console lists more than the metrics tag). */
    public Flux<String> products(int limit) {
        return Flux.fromIterable(configured.stream().sorted().toList())
                .concatWith(registry.products())
                .distinct()
                .take(limit);
    }

    public boolean isConfigured(String productId) {
        return configured.contains(productId);
    }

    public int max() {
        return max;
    }
}
