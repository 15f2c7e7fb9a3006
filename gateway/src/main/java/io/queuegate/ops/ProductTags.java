package io.queuegate.ops;

import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The value of the {@code product} tag: the product id for the first {@code max} products seen
 * (configured products always count among them), {@link #OTHER} for any beyond, so a client
 * inventing product ids cannot grow the number of time series without end.
 */
public final class ProductTags {

    /** The tag of products beyond the bound; parentheses never occur in a product id. */
    public static final String OTHER = "(other)";

    /** The tag where no single product applies. */
    public static final String NONE = "(none)";

    private final int max;
    private final Set<String> known = ConcurrentHashMap.newKeySet();

    public ProductTags(int max, Collection<String> configured) {
        this.max = max;
        configured.stream().limit(max).forEach(known::add);
    }

    public String of(String productId) {
        if (productId == null) {
            return NONE;
        }
        if (known.contains(productId)) {
            return productId;
        }
        return admit(productId) ? productId : OTHER;
    }

    /** Whether the product has, or may now take, a tag of its own. */
    public boolean admit(String productId) {
        if (known.contains(productId)) {
            return true;
        }
        synchronized (known) {
            if (known.size() >= max) {
                return false;
            }
            known.add(productId);
            return true;
        }
    }
}
