package io.queuegate.ops;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;

/**
 * The value of the {@code product} tag: the product id for the configured products and for as
 * many other products as the bound allows, {@link #OTHER} for any beyond. The products the
 * operators' ranking puts first ({@link #rank}: the most waiting, then the most admitted) keep
 * their tags; the rest of the bound goes to the products in use most often and most lately
 * (Caffeine's eviction). A product that falls out of the bound has its meters removed
 * ({@link #onEvicted}), so the number of time series stays bounded, and a client inventing product
 * ids cannot push a busy product's gauges and counters out.
 */
public final class ProductTags {

    /** The tag of products beyond the bound; parentheses never occur in a product id. */
    public static final String OTHER = "(other)";

    /** The tag where no single product applies. */
    public static final String NONE = "(none)";

    private final int max;
    private final Set<String> configured;
    /** Product id → whether the ranking holds it (weight 0: never evicted for size). */
    private final Cache<String, Boolean> others;
    private final List<Consumer<String>> evicted = new CopyOnWriteArrayList<>();
    private Set<String> ranked = Set.of();

    public ProductTags(int max, Collection<String> configured) {
        this.max = max;
        this.configured = Set.copyOf(configured.stream().limit(max).toList());
        this.others = Caffeine.newBuilder()
                .maximumWeight(room(0))
                .weigher((String productId, Boolean held) -> held ? 0 : 1)
                .executor(Runnable::run)
                .removalListener((String productId, Boolean held, RemovalCause cause) -> {
                    if (productId != null && cause.wasEvicted()) {
                        evicted.forEach(listener -> listener.accept(productId));
                    }
                })
                .build();
    }

    public String of(String productId) {
        if (productId == null) {
            return NONE;
        }
        return admit(productId) ? productId : OTHER;
    }

    /** Whether the product has, or may now take, a tag of its own. */
    public boolean admit(String productId) {
        if (configured.contains(productId)) {
            return true;
        }
        others.get(productId, id -> Boolean.FALSE);
        others.cleanUp();
        return others.getIfPresent(productId) != null;
    }

    /**
     * The operators' ranking, most important first: its products keep their tags for as long as
     * it holds them, and the others share what is left of the bound.
     */
    public synchronized void rank(Collection<String> products) {
        Set<String> held = new HashSet<>();
        for (String productId : products) {
            if (held.size() + configured.size() >= max) {
                break;
            }
            if (!configured.contains(productId)) {
                held.add(productId);
            }
        }
        ranked.stream().filter(productId -> !held.contains(productId))
                .forEach(productId -> others.asMap().replace(productId, Boolean.FALSE));
        held.forEach(productId -> others.put(productId, Boolean.TRUE));
        ranked = Set.copyOf(held);
        others.policy().eviction().ifPresent(eviction -> eviction.setMaximum(room(held.size())));
        others.cleanUp();
    }

    private long room(int held) {
        return Math.max(0, max - configured.size() - held);
    }

    /** Called with each product whose tag was given to others: its meters go. */
    public void onEvicted(Consumer<String> listener) {
        evicted.add(listener);
    }
}
