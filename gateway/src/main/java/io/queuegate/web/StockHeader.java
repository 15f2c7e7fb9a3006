package io.queuegate.web;

import io.queuegate.config.QueueHeaders;

import org.springframework.cloud.gateway.filter.headers.HttpHeadersFilter;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.web.server.ServerWebExchange;

/**
 * {@code Queue-Stock: <n>}, the shop's word on the units a product has left, is between the shop
 * and the gateway like {@link ReleaseHeader}: it is taken off every shop answer on every route (and
 * noted for the admission filter when it is a whole number), so shoppers never see it, and taken
 * off every forwarded request ({@link ForwardedRequestHeaders}), so a client cannot pretend to be
 * the shop. A value that is not a whole number is dropped without a word to the shopper.
 */
public class StockHeader implements HttpHeadersFilter, Ordered {

    public static final String NAME = QueueHeaders.STOCK;

    /** The exchange attribute holding the units the shop's answer said are left. */
    static final String UNITS_LEFT = StockHeader.class.getName() + ".unitsLeft";

    /** More digits than any stock: a longer value is not believed. */
    private static final int MAX_DIGITS = 15;

    @Override
    public HttpHeaders filter(HttpHeaders input, ServerWebExchange exchange) {
        if (!input.containsHeader(NAME)) {
            return input;
        }
        Long unitsLeft = parse(input.getValuesAsList(NAME));
        if (unitsLeft != null) {
            exchange.getAttributes().put(UNITS_LEFT, unitsLeft);
        }
        HttpHeaders copy = HttpHeaders.copyOf(input);
        copy.remove(NAME);
        return copy;
    }

    /** One whole number of at most {@value #MAX_DIGITS} digits, else {@code null} (two values are one too many). */
    static Long parse(java.util.List<String> values) {
        if (values.size() != 1) {
            return null;
        }
        String value = values.get(0).strip();
        if (value.isEmpty() || value.length() > MAX_DIGITS || !value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return null;
        }
        return Long.parseLong(value);
    }

    /** The units the shop's answer said are left, or {@code null} when it said nothing believable. */
    static Long unitsLeft(ServerWebExchange exchange) {
        return exchange.getAttribute(UNITS_LEFT);
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
