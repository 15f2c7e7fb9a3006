package io.queuegate.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.cloud.gateway.route.Route;

/**
 * Reads the {@code queue} block of a route's metadata with Spring's relaxed binding (so
 * {@code max-active}, {@code 10m} and {@code pubsub} mean what they do in any Boot property)
 * and applies the per-product overrides. Results are cached per route and product, since a
 * policy is built for every protected request.
 */
public class RouteQueuePolicies {

    /** The metadata key that marks a route as protected. */
    public static final String METADATA_KEY = "queue";

    private final Map<String, QueueSettings> productOverrides;
    private final Map<Route, QueueSettings> byRoute = new ConcurrentHashMap<>();
    private final Map<PolicyKey, QueuePolicy> byProduct = new ConcurrentHashMap<>();

    public RouteQueuePolicies(Map<String, QueueSettings> productOverrides) {
        this.productOverrides = productOverrides;
    }

    /** Whether the route carries a {@code queue} block. */
    public static boolean isProtected(Route route) {
        return route != null && route.getMetadata().get(METADATA_KEY) instanceof Map;
    }

    /** The route's own settings; the route must be protected. Fails on values that cannot bind. */
    public QueueSettings routeSettings(Route route) {
        // Routes are rebuilt on refresh, so keying by instance never serves stale metadata.
        if (byRoute.size() > 1_000) {
            byRoute.clear();
        }
        return byRoute.computeIfAbsent(route, RouteQueuePolicies::bind);
    }

    /** The path variable that holds the product id on this protected route. */
    public String productIdVariable(Route route) {
        String variable = routeSettings(route).productIdVariable();
        return variable != null ? variable : QueuePolicy.DEFAULT_PRODUCT_ID_VARIABLE;
    }

    /** The policy for one product on one route; the product id must be validated. */
    public QueuePolicy policy(Route route, String productId) {
        QueueSettings override = productOverrides.get(productId);
        PolicyKey key = new PolicyKey(route, override != null ? productId : null);
        if (byProduct.size() > 10_000) {
            byProduct.clear();
        }
        return byProduct.computeIfAbsent(key, k -> QueuePolicy.from(routeSettings(route).overriddenBy(override)));
    }

    static QueueSettings bind(Route route) {
        Map<String, Object> flat = new LinkedHashMap<>();
        flatten(METADATA_KEY, route.getMetadata().get(METADATA_KEY), flat);
        try {
            return new Binder(new MapConfigurationPropertySource(flat))
                    .bindOrCreate(METADATA_KEY, Bindable.of(QueueSettings.class));
        }
        catch (RuntimeException ex) {
            throw new IllegalArgumentException("route '" + route.getId() + "' has an invalid queue block: "
                    + rootMessage(ex), ex);
        }
    }

    private static void flatten(String prefix, Object value, Map<String, Object> into) {
        if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> flatten(prefix + "." + k, v, into));
        }
        else if (value != null) {
            into.put(prefix, value.toString());
        }
    }

    private static String rootMessage(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage();
    }

    /** Products without an override share their route's entry, so the cache stays small. */
    private record PolicyKey(Route route, String productId) {
    }
}
