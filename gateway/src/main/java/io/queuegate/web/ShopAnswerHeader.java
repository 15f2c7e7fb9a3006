package io.queuegate.web;

import java.util.List;

import org.springframework.cloud.gateway.filter.headers.HttpHeadersFilter;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.web.server.ServerWebExchange;

/**
 * A header that is between the shop and the gateway ({@code Queue-Release}, {@code Queue-Stock}):
 * taken off every shop answer on every route, after what it says is noted for the admission
 * filter, so a shopper never sees it; {@link ForwardedRequestHeaders} takes it off every forwarded
 * request, so a client cannot speak for the shop.
 */
abstract class ShopAnswerHeader implements HttpHeadersFilter, Ordered {

    private final String name;

    ShopAnswerHeader(String name) {
        this.name = name;
    }

    /** Notes what the shop's answer says in this header (all its values), for the admission filter. */
    abstract void note(List<String> values, ServerWebExchange exchange);

    @Override
    public final HttpHeaders filter(HttpHeaders input, ServerWebExchange exchange) {
        if (!input.containsHeader(name)) {
            return input;
        }
        note(input.getValuesAsList(name), exchange);
        HttpHeaders copy = HttpHeaders.copyOf(input);
        copy.remove(name);
        return copy;
    }

    @Override
    public final boolean supports(Type type) {
        return type == Type.RESPONSE;
    }

    @Override
    public final int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
