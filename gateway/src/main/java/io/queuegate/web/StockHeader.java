package io.queuegate.web;

import java.util.List;

import io.queuegate.config.QueueHeaders;

import org.springframework.web.server.ServerWebExchange;

/**
 * {@code Queue-Stock: <n>}, the shop's word on the units a product has left: noted for the
 * admission filter when it is one whole number, and never seen by shoppers ({@link ShopAnswerHeader}).
 * A value that is not one whole number is dropped without a word to the shopper.
 */
public class StockHeader extends ShopAnswerHeader {

    public static final String NAME = QueueHeaders.STOCK;

    /** The exchange attribute holding the units the shop's answer said are left. */
    static final String UNITS_LEFT = StockHeader.class.getName() + ".unitsLeft";

    /** More digits than any stock: a longer value is not believed. */
    private static final int MAX_DIGITS = 15;

    public StockHeader() {
        super(NAME);
    }

    @Override
    void note(List<String> values, ServerWebExchange exchange) {
        Long unitsLeft = parse(values);
        if (unitsLeft != null) {
            exchange.getAttributes().put(UNITS_LEFT, unitsLeft);
        }
    }

    /** One whole number of at most {@value #MAX_DIGITS} digits, else {@code null} (two values are one too many). */
    static Long parse(List<String> values) {
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
}
