package io.queuegate.paths;

import java.net.URI;

import io.queuegate.events.QueueEvents;
import io.queuegate.routes.RouteQueuePolicies;
import io.queuegate.web.QueueAdmissionFilter;
import io.queuegate.web.QueueError;
import io.queuegate.web.QueueResponses;

import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.core.Ordered;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A request that another route took, whose path read loosely (any letter case, a format suffix, a
 * trailing slash) spells a protected route's path, is that protected route's: a GET or HEAD is sent
 * to the route's own spelling ({@code 308}), any other method is refused with
 * {@code 400 noncanonical_path}. It is never forwarded unqueued through a catch-all route to a
 * shop that reads paths as loosely. The path the shop gets is never rewritten. A path a protected
 * route's patterns match but whose own spelling cannot be made is refused, whatever the method.
 */
public class OtherSpellingFilter implements GlobalFilter, Ordered {

    /** Before the checks on the protected route itself, which never see this request. */
    public static final int ORDER = QueueAdmissionFilter.ORDER - 2;

    private final ProtectedPathIndex index;
    private final QueueResponses responses;
    private final QueueEvents events;

    public OtherSpellingFilter(ProtectedPathIndex index, QueueResponses responses, QueueEvents events) {
        this.index = index;
        this.responses = responses;
        this.events = events;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        Route route = exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR);
        if (RouteQueuePolicies.isProtected(route)) {
            return chain.filter(exchange);
        }
        return index.current().flatMap(paths -> {
            String path = exchange.getRequest().getPath().pathWithinApplication().value();
            if (!paths.mayMatch(path)) {
                return chain.filter(exchange);
            }
            ProtectedPaths.Spelling spelling = paths.spell(path);
            if (spelling == null || path.equals(spelling.path())) {
                // Spelled as the protected route spells it, yet routed elsewhere: the shop's own route order.
                return chain.filter(exchange);
            }
            if (spelling.path() == null) {
                return refuse(exchange, route);
            }
            return RouteProbe.anyReaches(exchange, Flux.just(spelling.route()), spelling.path())
                    .flatMap(reaches -> reaches ? answer(exchange, route, spelling.path()) : chain.filter(exchange));
        });
    }

    private Mono<Void> answer(ServerWebExchange exchange, Route route, String ownSpelling) {
        ServerHttpRequest request = exchange.getRequest();
        HttpMethod method = request.getMethod();
        if (!HttpMethod.GET.equals(method) && !HttpMethod.HEAD.equals(method)) {
            return refuse(exchange, route);
        }
        String query = request.getURI().getRawQuery();
        String location = request.getPath().contextPath().value() + ownSpelling + (query == null ? "" : "?" + query);
        return responses.permanentRedirect(exchange, URI.create(location));
    }

    private Mono<Void> refuse(ServerWebExchange exchange, Route route) {
        events.rejected(route.getId(), QueueError.NONCANONICAL_PATH.code());
        return responses.error(exchange, QueueError.NONCANONICAL_PATH, QueueError.NONCANONICAL_PATH.message(), false);
    }
}
