package io.queuegate.web;

import io.queuegate.config.QueueHeaders;

import org.springframework.cloud.gateway.filter.headers.HttpHeadersFilter;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.web.server.ServerWebExchange;

/**
 * {@code Queue-Release}, a backend's way to end the caller's session with any answer, is between
 * the backend and the gateway: it is taken off every shop answer on every route (and noted for
 * the admission filter when it says {@code true}), so a client never sees it, and taken off every
 * forwarded request ({@link ForwardedRequestHeaders}), so a client cannot send it to the shop.
 */
public class ReleaseHeader implements HttpHeadersFilter, Ordered {

    public static final String NAME = QueueHeaders.RELEASE;

    /** The exchange attribute set when the shop's answer asked to end the caller's session. */
    static final String RELEASED = ReleaseHeader.class.getName() + ".released";

    @Override
    public HttpHeaders filter(HttpHeaders input, ServerWebExchange exchange) {
        if (!input.containsHeader(NAME)) {
            return input;
        }
        if ("true".equalsIgnoreCase(input.getFirst(NAME))) {
            exchange.getAttributes().put(RELEASED, Boolean.TRUE);
        }
        HttpHeaders copy = HttpHeaders.copyOf(input);
        copy.remove(NAME);
        return copy;
    }

    static boolean released(ServerWebExchange exchange) {
        return Boolean.TRUE.equals(exchange.getAttribute(RELEASED));
    }

    @Override
    public boolean supports(Type type) {
        return type == Type.RESPONSE;
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
