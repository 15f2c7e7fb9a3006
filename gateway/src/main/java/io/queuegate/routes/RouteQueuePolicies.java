package io.queuegate.routes;

import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

import io.queuegate.config.DisplayNames;
import io.queuegate.config.LooseReading;
import io.queuegate.config.ProductIdCase;
import io.queuegate.config.QueuePolicy;
import io.queuegate.config.QueueSettings;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.core.NestedExceptionUtils;

/**
 * Reads the {@code queue} block of a route's metadata with Spring's relaxed binding (so
 * {@code max-active}, {@code 10m} and {@code pubsub} mean what they do in any Boot property)
 * and applies the per-product overrides. Results are cached per route and product, since a
 * policy is built for every protected request.
 */
public class RouteQueuePolicies {

    /** The metadata key that marks a route as protected. */
    public static final String METADATA_KEY = "queue";

    /** Products remembered for {@link #label}; beyond it the least used go first (invented ids cannot grow it). */
    static final int MAX_LABELLED = 10_000;

    private final QueueSettings routeDefaults;
    private final Map<String, QueueSettings> productOverrides;
    // Keyed by route id (a String hashes once), holding the Route instance: routes are rebuilt on
    // refresh, so an entry for another instance of the same id is stale. Route.hashCode would
    // hash its whole metadata on every request.
    private final Map<String, RouteEntry> byRoute = new ConcurrentHashMap<>();
    /**
     * The last policy served per product, only of products it names or schedules: a route's
     * display-name or opens-at applies to products the configuration cannot list, so the console
     * learns them from the requests. Values are shared policy instances; only the keys cost memory.
     */
    private final Map<String, QueuePolicy> labelled = com.github.benmanes.caffeine.cache.Caffeine.newBuilder()
            .maximumSize(MAX_LABELLED).<String, QueuePolicy>build().asMap();
    /**
     * Routes that must not serve, by id, each with its queue block as it was refused and why: a
     * route that disagrees with another on the rules of products both could serve
     * ({@link RouteConflicts}). Empty but for a refresh that brought such a route.
     */
    private volatile Map<String, Refused> refused = Map.of();

    /**
     * @param routeDefaults what a route's queue block has where it sets nothing
     *                      ({@code queuegate.route-defaults})
     * @param productOverrides the per-product overrides ({@code queuegate.products}), by product id in
     *                         lower case
     */
    public RouteQueuePolicies(QueueSettings routeDefaults, Map<String, QueueSettings> productOverrides) {
        this.routeDefaults = routeDefaults;
        this.productOverrides = productOverrides;
    }

    /** Per-product overrides, with no route defaults. */
    public RouteQueuePolicies(Map<String, QueueSettings> productOverrides) {
        this(QueueSettings.EMPTY, productOverrides);
    }

    /**
     * Whether the route carries a {@code queue} entry in its metadata. Whatever its value: a
     * {@code queue} that is not a block is an invalid block, never an unprotected route.
     */
    public static boolean isProtected(Route route) {
        return route != null && route.getMetadata().containsKey(METADATA_KEY);
    }

    /**
     * The route's own settings over the route defaults; the route must be protected. Fails on
     * values that cannot bind.
     */
    public QueueSettings routeSettings(Route route) {
        return entry(route).settings();
    }

    /** The path variable that holds the product id on this protected route. */
    public String productIdVariable(Route route) {
        String variable = routeSettings(route).productIdVariable();
        return variable != null ? variable : QueuePolicy.DEFAULT_PRODUCT_ID_VARIABLE;
    }

    /**
     * The product id a path variable of this protected route spells, read loosely: without a format
     * suffix ({@code 10.json} is {@code 10}) and, unless the route keeps case
     * ({@code product-id-case: keep}), in lower case. {@code null} stays {@code null}.
     */
    public String productId(Route route, String variable) {
        if (variable == null) {
            return null;
        }
        String id = LooseReading.withoutSuffix(variable);
        return routeSettings(route).productIdCase() == ProductIdCase.KEEP ? id : LooseReading.folded(id);
    }

    /**
     * What every product id of this protected route must match, or {@code null}. Fails on an invalid
     * pattern. Ids read in lower case are matched in any case ({@code [A-Z]{3}} takes {@code snk}):
     * the pattern gives each product one spelling, and the reading already gave it one case.
     */
    public Pattern productIdPattern(Route route) {
        return entry(route).pattern().get();
    }

    /**
     * The policy for one product on one route; the product id must be validated. Fails, as for an
     * invalid queue block, on a route refused because it disagrees with another that serves.
     */
    public QueuePolicy policy(Route route, String productId) {
        Map<String, Refused> refusedNow = refused;
        if (!refusedNow.isEmpty()) {
            Refused refusal = refusedNow.get(route.getId());
            if (refusal != null && refusal.queue().equals(route.getMetadata().get(METADATA_KEY))) {
                throw new IllegalArgumentException(refusal.reason());
            }
        }
        RouteEntry entry = entry(route);
        QueueSettings override = productOverrides.get(LooseReading.folded(productId));
        // Products without an override share their route's policy; overrides are configured, so few.
        QueuePolicy policy = override == null ? entry.policy()
                : entry.byProduct().computeIfAbsent(productId,
                        id -> QueuePolicy.from(entry.settings().overriddenBy(override)));
        if ((policy.displayName() != null || policy.displayNames() != null || policy.opensAt() != null)
                && labelled.get(productId) != policy) {
            labelled.put(productId, policy);
        }
        return policy;
    }

    /**
     * From now on, refuses these routes (as their queue blocks are now) until the next call: their
     * requests fail as a route with an invalid block does.
     *
     * @param reasons why, by route id
     * @param routes the routes as they were checked
     */
    void refuse(Map<String, String> reasons, Iterable<Route> routes) {
        Map<String, Refused> now = new HashMap<>();
        for (Route route : routes) {
            String reason = reasons.get(route.getId());
            if (reason != null) {
                now.put(route.getId(), new Refused(route.getMetadata().get(METADATA_KEY), reason));
            }
        }
        refused = Map.copyOf(now);
    }

    /**
     * What operators see of a product beside its id: its display-name and a scheduled sale's
     * opens-at, as the last request for it was served here, else as {@code queuegate.products}
     * configures them; both {@code null} when neither names it.
     */
    public ProductLabel label(String productId) {
        QueuePolicy served = labelled.get(productId);
        if (served != null) {
            return new ProductLabel(served.displayName(), served.opensAt(), served.displayNames());
        }
        QueueSettings override = productOverrides.get(LooseReading.folded(productId));
        if (override == null) {
            return ProductLabel.NONE;
        }
        String name = override.displayName();
        return new ProductLabel(name == null || name.isBlank() ? null : name.strip(), override.opensAt(),
                QueuePolicy.checkDisplayNames(override.displayNames()));
    }

    /**
     * @param displayName the product's display-name, or {@code null}
     * @param opensAt when its scheduled sale opens, or {@code null}
     * @param displayNames its names by lower-case language tag (display-names), or {@code null}
     */
    public record ProductLabel(String displayName, Instant opensAt, Map<String, String> displayNames) {

        static final ProductLabel NONE = new ProductLabel(null, null, null);

        public ProductLabel(String displayName, Instant opensAt) {
            this(displayName, opensAt, null);
        }

        /** The product's name for a page in {@code locale}, else {@code fallback} (its id). */
        public String displayName(Locale locale, String fallback) {
            String name = DisplayNames.in(displayNames, displayName, locale);
            return name != null ? name : fallback;
        }
    }

    private RouteEntry entry(Route route) {
        RouteEntry entry = byRoute.get(route.getId());
        if (entry == null || entry.route() != route) {
            if (byRoute.size() > 1_000) {
                byRoute.clear();
            }
            QueueSettings settings = routeDefaults.overriddenBy(bind(route));
            entry = new RouteEntry(route, settings, new ConcurrentHashMap<>(), LazyPolicy.of(settings),
                    new LazyPattern(settings.productIdPattern(),
                            settings.productIdCase() == ProductIdCase.KEEP ? 0 : Pattern.CASE_INSENSITIVE));
            byRoute.put(route.getId(), entry);
        }
        return entry;
    }

    static QueueSettings bind(Route route) {
        if (!(route.getMetadata().get(METADATA_KEY) instanceof Map)) {
            throw new IllegalArgumentException("route '" + route.getId() + "' has a 'queue' entry that is not a block "
                    + "of settings (max-active, session-ttl, ...): " + route.getMetadata().get(METADATA_KEY));
        }
        Map<String, Object> flat = new LinkedHashMap<>();
        flatten(METADATA_KEY, route.getMetadata().get(METADATA_KEY), flat);
        try {
            return new Binder(new MapConfigurationPropertySource(flat))
                    .bindOrCreate(METADATA_KEY, Bindable.of(QueueSettings.class));
        }
        catch (RuntimeException ex) {
            throw new IllegalArgumentException("route '" + route.getId() + "' has an invalid queue block: "
                    + NestedExceptionUtils.getMostSpecificCause(ex).getMessage(), ex);
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

    /** A refused route's queue block (so the same route, rebuilt by a refresh, is still refused), and why. */
    private record Refused(Object queue, String reason) {
    }

    private record RouteEntry(Route route, QueueSettings settings, Map<String, QueuePolicy> byProduct,
            LazyPolicy lazy, LazyPattern pattern) {

        QueuePolicy policy() {
            return lazy.get();
        }
    }

    /**
     * The route's own policy, built on first use: building validates, and an invalid route block
     * must fail where its policy is asked for (the startup check), not when its settings are read.
     */
    private static final class LazyPolicy {

        private final QueueSettings settings;
        private volatile QueuePolicy policy;

        private LazyPolicy(QueueSettings settings) {
            this.settings = settings;
        }

        static LazyPolicy of(QueueSettings settings) {
            return new LazyPolicy(settings);
        }

        QueuePolicy get() {
            QueuePolicy current = policy;
            if (current == null) {
                current = QueuePolicy.from(settings);
                policy = current;
            }
            return current;
        }
    }
}
