package io.queuegate.routes;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.queuegate.config.InviteMode;
import io.queuegate.config.Promotion;
import io.queuegate.config.QueueGateProperties;
import io.queuegate.config.QueuePolicy;
import io.queuegate.config.QueueSettings;
import io.queuegate.promotion.PromotionListeners;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.cloud.gateway.event.RefreshRoutesResultEvent;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;

import reactor.core.publisher.Mono;

/**
 * Checks every protected route's {@code queue} block, and the protected routes against each other
 * ({@link RouteConflicts}: two that can serve one product must agree on its stored rules), and
 * starts the promotion listeners the routes' strategies need. At startup it runs once every bean
 * exists and before the server opens its port, so a typo such as {@code max-active: -1} or two
 * routes that disagree stop the start instead of surfacing on the first shopper's request. Routes
 * that change at runtime (a refresh: discovery, a route repository, a configuration refresh) are
 * checked again: an invalid one, or a new or changed one that disagrees with a route that serves,
 * is reported loudly and its requests are answered 503 until it is fixed (it stays routed, so they
 * never fall through to another route), and a strategy that is new gets its listeners.
 */
public class RouteValidation implements SmartInitializingSingleton, ApplicationListener<RefreshRoutesResultEvent> {

    private static final Log log = LogFactory.getLog(RouteValidation.class);

    private final RouteLocator routes;
    private final RouteQueuePolicies policies;
    private final Map<String, QueueSettings> productOverrides;
    private final PromotionListeners listeners;
    private final Environment environment;
    private final boolean invitationKeys;
    private final RouteConflicts conflicts = new RouteConflicts();

    /** @param invitationKeys whether a key to check invitations with is configured ({@code queuegate.invites.*}) */
    public RouteValidation(RouteLocator routes, RouteQueuePolicies policies, Map<String, QueueSettings> productOverrides,
            PromotionListeners listeners, Environment environment, boolean invitationKeys) {
        this.routes = routes;
        this.policies = policies;
        this.productOverrides = productOverrides;
        this.listeners = listeners;
        this.environment = environment;
        this.invitationKeys = invitationKeys;
    }

    @Override
    public void afterSingletonsInstantiated() {
        warnAboutIgnoredRoutes();
        // Startup, not a request: waiting for the route list here blocks nobody.
        Checked checked = check(routes.getRoutes().collectList().block());
        if (!checked.problems().isEmpty()) {
            throw new IllegalStateException("QueueGate route configuration is invalid:\n  "
                    + String.join("\n  ", checked.problems()));
        }
        if (checked.protectedRoutes() == 0) {
            log.warn("QueueGate is on, but no route has a 'queue' block in its metadata: nothing is protected");
        }
        else {
            warnAboutUnreachableProducts(checked.patterns());
        }
        // Startup, not a request: a CONFIG check may take a round trip before traffic is served.
        listeners.startFor(checked.strategies()).block();
    }

    /** Routes changed at runtime: report the invalid ones, start the listeners of new strategies. */
    @Override
    public void onApplicationEvent(RefreshRoutesResultEvent event) {
        if (!event.isSuccess()) {
            return;
        }
        // Synchronous for a cached route list: the refusals are in place as the new routes serve.
        routes.getRoutes().collectList().map(this::check).flatMap(checked -> {
            checked.problems().forEach(problem -> log.error("QueueGate refuses " + problem
                    + "; its requests are answered 503 queue_misconfigured until the route is fixed"));
            return listeners.startFor(checked.strategies());
        }).onErrorResume(error -> {
            log.error("QueueGate could not check the refreshed routes: " + error);
            return Mono.empty();
        }).subscribe();
    }

    private Checked check(List<Route> all) {
        List<String> problems = new ArrayList<>();
        Set<Promotion> strategies = EnumSet.noneOf(Promotion.class);
        Map<String, Pattern> patterns = new LinkedHashMap<>();
        List<StoredRules> valid = new ArrayList<>();
        List<Route> checked = all == null ? List.of() : all;
        int protectedRoutes = 0;
        for (Route route : checked) {
            if (!RouteQueuePolicies.isProtected(route)) {
                continue;
            }
            protectedRoutes++;
            try {
                QueueSettings settings = policies.routeSettings(route);
                QueuePolicy policy = QueuePolicy.from(settings);
                requireInvitationKeys(policy);
                strategies.add(policy.promotion());
                patterns.put(route.getId(), policies.productIdPattern(route));
                valid.add(StoredRules.of(route.getId(), settings));
                for (QueueSettings override : productOverrides.values()) {
                    strategies.add(QueuePolicy.from(settings.overriddenBy(override)).promotion());
                }
                log.info("Route '" + route.getId() + "' is protected by QueueGate: " + policy);
            }
            catch (IllegalArgumentException ex) {
                problems.add("route '" + route.getId() + "': " + ex.getMessage());
            }
        }
        Map<String, String> disagreeing = conflicts.check(valid);
        policies.refuse(disagreeing, checked);
        disagreeing.forEach((id, reason) -> problems.add(reason));
        return new Checked(problems, strategies, protectedRoutes, patterns);
    }

    /**
     * A product configured under {@code queuegate.products} whose id no protected route's
     * {@code product-id-pattern} accepts is never served: every request for it is refused with
     * {@code 400 invalid_product} before its settings (an opening, a capacity) are read. Said at
     * startup, since nothing else would say it until the sale.
     *
     * @param patterns each protected route's pattern by route id ({@code null}: any id)
     */
    private void warnAboutUnreachableProducts(Map<String, Pattern> patterns) {
        if (patterns.containsValue(null)) {
            return;
        }
        String taken = patterns.entrySet().stream()
                .map(route -> "route '" + route.getKey() + "' takes ids matching " + route.getValue().pattern())
                .collect(Collectors.joining("; "));
        for (String productId : productOverrides.keySet()) {
            if (patterns.values().stream().noneMatch(pattern -> pattern.matcher(productId).matches())) {
                log.warn("queuegate.products." + productId + ": no protected route takes this product id (" + taken
                        + "), so these settings apply to no request");
            }
        }
    }

    /** A route that asks for invitations, with no key to check one, would let nobody in (or everyone). */
    private void requireInvitationKeys(QueuePolicy policy) {
        if (policy.invites() != InviteMode.OFF && !invitationKeys) {
            throw new IllegalArgumentException("invites is " + policy.invites().name().toLowerCase(Locale.ROOT)
                    + ", but no invitation key is configured: " + QueueGateProperties.Invites.WHICH_KEY);
        }
    }

    /** Spring Cloud Gateway 5 reads routes only under spring.cloud.gateway.server.webflux.routes. */
    private void warnAboutIgnoredRoutes() {
        if (environment.containsProperty("spring.cloud.gateway.routes[0].id")
                || environment.containsProperty("spring.cloud.gateway.routes[0].uri")) {
            log.warn("Routes under 'spring.cloud.gateway.routes' are ignored by Spring Cloud Gateway 5; "
                    + "move them to 'spring.cloud.gateway.server.webflux.routes'");
        }
    }

    /** @param patterns each protected route's {@code product-id-pattern} by route id, {@code null} for none */
    private record Checked(List<String> problems, Set<Promotion> strategies, int protectedRoutes,
            Map<String, Pattern> patterns) {
    }
}
