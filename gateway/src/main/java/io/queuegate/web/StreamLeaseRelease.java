package io.queuegate.web;

import io.queuegate.live.StreamLimits;

import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

import reactor.core.publisher.Mono;

/**
 * Closes an event stream's lease when its exchange ends, however it ends. The stream's own end
 * closes it too; but a connection lost between the handler's answer and the first event would
 * leave it open, lowering the shopper's and the address's stream caps for good.
 */
public class StreamLeaseRelease implements WebFilter, Ordered {

    static final String LEASE = StreamLeaseRelease.class.getName() + ".lease";

    /** The one endpoint that takes a lease. */
    private static final PathPattern EVENTS = PathPatternParser.defaultInstance.parse(QueueEndpoints.EVENTS_PATH);

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        // Only an event stream takes a lease: every other request (a shop's page, most of all)
        // passes on without a hook of its own.
        if (!EVENTS.matches(exchange.getRequest().getPath().pathWithinApplication())) {
            return chain.filter(exchange);
        }
        return chain.filter(exchange).doFinally(signal -> {
            StreamLimits.Lease lease = exchange.getAttribute(LEASE);
            if (lease != null) {
                lease.close();
            }
        });
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
