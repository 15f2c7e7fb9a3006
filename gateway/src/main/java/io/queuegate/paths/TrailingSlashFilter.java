package io.queuegate.paths;


import io.queuegate.events.QueueEvents;
import io.queuegate.routes.RouteQueuePolicies;
import io.queuegate.web.QueueResponses;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.gateway.filter.WeightCalculatorWebFilter;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import reactor.core.publisher.Mono;

/**
 * Refuses a path ending in {@code /} with 400 {@code invalid_path} when the path without it would
 * reach a protected route, before routing: shops keep their {@code /docs/}, and
 * {@code /api/products/42/orders/} can neither pass for another path than
 * {@code /api/products/42/orders} nor fall through to a catch-all route.
 *
 * <p>It probes the routes right after Spring Cloud Gateway's {@link WeightCalculatorWebFilter}:
 * a {@code Weight=} predicate matches only once that filter has drawn the request's route of each
 * weight group (and, as in the gateway's own route lookup, when told which route it is testing),
 * so an earlier probe would not find a weighted protected route. Every web filter
 * still runs before the gateway's handler mapping chooses the route. What a probe cannot see (a
 * protected route that only matches with the slash, a predicate that reads what later filters
 * write) is refused on the route itself by {@link RoutedTrailingSlashFilter}.
 */
public class TrailingSlashFilter implements WebFilter, Ordered {

    private final ObjectProvider<RouteLocator> routes;
    private final ObjectProvider<WeightCalculatorWebFilter> weights;
    private final PathRefusals refusals;

    public TrailingSlashFilter(ObjectProvider<RouteLocator> routes, ObjectProvider<WeightCalculatorWebFilter> weights,
            QueueResponses responses, QueueEvents events) {
        this.routes = routes;
        this.weights = weights;
        this.refusals = new PathRefusals(responses, events);
    }

    /** Right after the weight filter, wherever the application put it. */
    @Override
    public int getOrder() {
        WeightCalculatorWebFilter weightFilter = weights.getIfAvailable();
        int after = weightFilter == null ? WeightCalculatorWebFilter.WEIGHT_CALC_FILTER_ORDER : weightFilter.getOrder();
        return after == Ordered.LOWEST_PRECEDENCE ? after : after + 1;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        String path = exchange.getRequest().getPath().value();
        if (!CanonicalPaths.hasTrailingSlash(path)) {
            return chain.filter(exchange);
        }
        return reachesProtectedRoute(exchange, path.substring(0, path.length() - 1))
                .flatMap(isProtected -> isProtected
                        ? refusals.refuse(exchange, CanonicalPathFilter.NO_ROUTE, PathRefusals.TRAILING_SLASH)
                        : chain.filter(exchange));
    }

    private Mono<Boolean> reachesProtectedRoute(ServerWebExchange exchange, String withoutSlash) {
        RouteLocator locator = routes.getIfAvailable();
        if (locator == null) {
            return Mono.just(false);
        }
        return RouteProbe.anyReaches(exchange, locator.getRoutes().filter(RouteQueuePolicies::isProtected), withoutSlash);
    }
}
