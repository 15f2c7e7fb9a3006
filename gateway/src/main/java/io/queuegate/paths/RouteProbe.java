package io.queuegate.paths;

import java.util.HashMap;
import java.util.Map;

import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Asks routes' predicates whether a request would reach them with another path, as Spring Cloud
 * Gateway's own route lookup asks them, and leaves the request's attributes as they were: route
 * predicates write what they matched into the exchange's attributes, which the probe shares.
 */
final class RouteProbe {

    private RouteProbe() {
    }

    /** Whether any of {@code routes} would take the request with {@code path} instead of its own. */
    static Mono<Boolean> anyReaches(ServerWebExchange exchange, Flux<Route> routes, String path) {
        ServerWebExchange probe = exchange.mutate().request(request -> request.path(path)).build();
        Map<String, Object> attributes = exchange.getAttributes();
        Map<String, Object> before = new HashMap<>(attributes);
        // Restored before the request goes on: later it would undo what routing and the route's
        // filters wrote.
        Runnable restore = () -> {
            attributes.keySet().retainAll(before.keySet());
            attributes.putAll(before);
        };
        // The Path predicate keeps the path it parsed in the attributes: parsed again, the probe's.
        attributes.remove(ServerWebExchangeUtils.GATEWAY_PREDICATE_PATH_CONTAINER_ATTR);
        return routes.concatMap(route -> matches(route, probe))
                .any(Boolean::booleanValue)
                .map(found -> {
                    restore.run();
                    return found;
                })
                .doOnError(error -> restore.run())
                .doOnCancel(restore);
    }

    private static Mono<Boolean> matches(Route route, ServerWebExchange probe) {
        // As the gateway's handler mapping does: a Weight predicate asks which route it is testing.
        probe.getAttributes().put(ServerWebExchangeUtils.GATEWAY_PREDICATE_ROUTE_ATTR, route.getId());
        return Flux.from(route.getPredicate().apply(probe)).next().defaultIfEmpty(false);
    }
}
