package io.queuegate.paths;

import io.queuegate.events.QueueEvents;
import io.queuegate.web.QueueError;
import io.queuegate.web.QueueResponses;

import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Mono;

/** The one answer to a path that is not canonical: 400 {@code invalid_path}, counted per route. */
final class PathRefusals {

    /** The problem of a trailing {@code /} on a protected route, wherever it is found. */
    static final String TRAILING_SLASH = "the path may not end with '/' on a protected route";

    private final QueueResponses responses;
    private final QueueEvents events;

    PathRefusals(QueueResponses responses, QueueEvents events) {
        this.responses = responses;
        this.events = events;
    }

    /** @param routeId the route the request matched, or {@link CanonicalPathFilter#NO_ROUTE} before routing */
    Mono<Void> refuse(ServerWebExchange exchange, String routeId, String problem) {
        events.rejected(routeId, QueueError.INVALID_PATH.code());
        return responses.error(exchange, QueueError.INVALID_PATH, problem
                + "; each path has one spelling here (no '//', '.', '..', encoded separators)", false);
    }
}
