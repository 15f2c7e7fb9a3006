package io.queuegate.admission;

import io.queuegate.config.RouteQueuePolicies;

import org.springframework.cloud.gateway.filter.headers.HttpHeadersFilter;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.web.server.ServerWebExchange;

/**
 * Keeps the wait token between the shopper and the gateway: a request forwarded on a protected
 * route goes to the shop without its {@code Queue-Token} header. It runs last among Spring Cloud
 * Gateway's header filters, inside the copy of the request headers they make for the forwarded
 * request anyway, so a forwarded request costs no copy of its own.
 */
public class QueueTokenHeadersFilter implements HttpHeadersFilter, Ordered {

    /** After the gateway's own header filters (the hop-by-hop filter runs just before it). */
    public static final int ORDER = Ordered.LOWEST_PRECEDENCE;

    @Override
    public HttpHeaders filter(HttpHeaders input, ServerWebExchange exchange) {
        Route route = exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR);
        if (!input.containsHeader(PresentedToken.HEADER) || !RouteQueuePolicies.isProtected(route)) {
            return input;
        }
        // The request's own headers are read-only; any other instance is a copy an earlier
        // filter made for this forwarded request, which may be changed in place.
        HttpHeaders forwarded = input == exchange.getRequest().getHeaders() ? HttpHeaders.copyOf(input) : input;
        forwarded.remove(PresentedToken.HEADER);
        return forwarded;
    }

    @Override
    public boolean supports(Type type) {
        return type == Type.REQUEST;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
