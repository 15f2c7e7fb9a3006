package io.queuegate.paths;

import io.queuegate.events.QueueEvents;
import io.queuegate.web.QueueResponses;

import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import reactor.core.publisher.Mono;

/**
 * Refuses non-canonical request paths ({@link CanonicalPaths}) with 400 {@code invalid_path},
 * before routing and on every route, so no spelling of a protected path can fall through to a
 * catch-all route or reach the shop as a purchase the gateway did not recognise. A trailing
 * {@code /} is judged by the route it reaches, later: {@link TrailingSlashFilter} before routing,
 * {@link RoutedTrailingSlashFilter} on the route that matched.
 */
public class CanonicalPathFilter implements WebFilter, Ordered {

    /** First: nothing should look at a path before it is known to be written one way. */
    public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 10;

    /** The route tag of a rejection that happened before routing. */
    public static final String NO_ROUTE = "(none)";

    private final PathRefusals refusals;

    public CanonicalPathFilter(QueueResponses responses, QueueEvents events) {
        this.refusals = new PathRefusals(responses, events);
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        String problem = CanonicalPaths.problem(exchange.getRequest().getPath().value());
        return problem == null ? chain.filter(exchange) : refusals.refuse(exchange, NO_ROUTE, problem);
    }
}
