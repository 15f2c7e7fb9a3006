package io.queuegate.paths;

import java.util.HashSet;
import java.util.Set;

import io.queuegate.events.QueueEvents;
import io.queuegate.routes.RouteQueuePolicies;
import io.queuegate.web.QueueError;
import io.queuegate.web.QueueResponses;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Refuses non-canonical request paths ({@link CanonicalPaths}) with 400 {@code invalid_path},
 * before routing and on every route, so no spelling of a protected path can fall through to a
 * catch-all route or reach the shop as a purchase the gateway did not recognise. A trailing
 * {@code /} is refused when the path without it would reach a protected route: shops keep their
 * {@code /docs/}, and {@code /api/products/42/orders/} cannot pass for a different path than
 * {@code /api/products/42/orders}.
 */
public class CanonicalPathFilter implements WebFilter, Ordered {

    /** First: nothing should look at a path before it is known to be written one way. */
    public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 10;

    /** The route tag of a rejection that happened before routing. */
    public static final String NO_ROUTE = "(none)";

    private final ObjectProvider<RouteLocator> routes;
    private final QueueResponses responses;
    private final QueueEvents events;

    public CanonicalPathFilter(ObjectProvider<RouteLocator> routes, QueueResponses responses, QueueEvents events) {
        this.routes = routes;
        this.responses = responses;
        this.events = events;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        String path = exchange.getRequest().getPath().value();
        String problem = CanonicalPaths.problem(path);
        if (problem != null) {
            return refuse(exchange, problem);
        }
        if (!CanonicalPaths.hasTrailingSlash(path)) {
            return chain.filter(exchange);
        }
        return reachesProtectedRoute(exchange, path.substring(0, path.length() - 1))
                .flatMap(isProtected -> isProtected
                        ? refuse(exchange, "the path may not end with '/' on a protected route")
                        : chain.filter(exchange));
    }

    private Mono<Boolean> reachesProtectedRoute(ServerWebExchange exchange, String withoutSlash) {
        RouteLocator locator = routes.getIfAvailable();
        if (locator == null) {
            return Mono.just(false);
        }
        ServerWebExchange probe = exchange.mutate().request(request -> request.path(withoutSlash)).build();
        // Route predicates write what they matched into the exchange's attributes, which the
        // probe shares: whatever the probe added is taken away again.
        Set<String> before = new HashSet<>(exchange.getAttributes().keySet());
        return locator.getRoutes()
                .filter(RouteQueuePolicies::isProtected)
                .concatMap(route -> matches(route, probe))
                .any(Boolean::booleanValue)
                .doFinally(signal -> exchange.getAttributes().keySet().retainAll(before));
    }

    private static Mono<Boolean> matches(Route route, ServerWebExchange probe) {
        return Flux.from(route.getPredicate().apply(probe)).next().defaultIfEmpty(false);
    }

    private Mono<Void> refuse(ServerWebExchange exchange, String problem) {
        events.rejected(NO_ROUTE, QueueError.INVALID_PATH.code());
        return responses.error(exchange, QueueError.INVALID_PATH, problem
                + "; each path has one spelling here (no '//', '.', '..', encoded separators)", false);
    }
}
