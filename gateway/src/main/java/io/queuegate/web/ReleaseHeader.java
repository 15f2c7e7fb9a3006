package io.queuegate.web;

import java.util.List;

import io.queuegate.config.QueueHeaders;

import org.springframework.web.server.ServerWebExchange;

/**
 * {@code Queue-Release}, a backend's way to end the caller's session with any answer: noted for
 * the admission filter when it says {@code true}, and never seen by shoppers ({@link ShopAnswerHeader}).
 */
public class ReleaseHeader extends ShopAnswerHeader {

    public static final String NAME = QueueHeaders.RELEASE;

    /** The exchange attribute set when the shop's answer asked to end the caller's session. */
    static final String RELEASED = ReleaseHeader.class.getName() + ".released";

    public ReleaseHeader() {
        super(NAME);
    }

    @Override
    void note(List<String> values, ServerWebExchange exchange) {
        if (!values.isEmpty() && "true".equalsIgnoreCase(values.get(0))) {
            exchange.getAttributes().put(RELEASED, Boolean.TRUE);
        }
    }

    static boolean released(ServerWebExchange exchange) {
        return Boolean.TRUE.equals(exchange.getAttribute(RELEASED));
    }
}
