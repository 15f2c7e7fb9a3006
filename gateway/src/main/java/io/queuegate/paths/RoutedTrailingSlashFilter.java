package io.queuegate.paths;

import io.queuegate.events.QueueEvents;
import io.queuegate.routes.RouteQueuePolicies;
import io.queuegate.web.QueueAdmissionFilter;
import io.queuegate.web.QueueResponses;

import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Mono;

/**
 * Refuses a path ending in {@code /} with 400 {@code invalid_path} on the protected route that
 * matched it, just before the admission filter: the route is known here, whatever the probe
 * before routing ({@link TrailingSlashFilter}) could or could not tell. The path is the one
 * received, before any filter of the route rewrites it.
 */
public class RoutedTrailingSlashFilter implements GlobalFilter, Ordered {

    public static final int ORDER = QueueAdmissionFilter.ORDER - 1;

    private final PathRefusals refusals;

    public RoutedTrailingSlashFilter(QueueResponses responses, QueueEvents events) {
        this.refusals = new PathRefusals(responses, events);
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        Route route = exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR);
        if (RouteQueuePolicies.isProtected(route)
                && CanonicalPaths.hasTrailingSlash(exchange.getRequest().getPath().value())) {
            return refusals.refuse(exchange, route.getId(), PathRefusals.TRAILING_SLASH);
        }
        return chain.filter(exchange);
    }
}
