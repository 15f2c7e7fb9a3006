package io.queuegate.web;

import java.util.List;
import java.util.function.Predicate;

import io.queuegate.events.QueueEvents;

import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import reactor.core.publisher.Mono;

/**
 * Refuses with 400 a request whose credentials can be read two ways, on every route and endpoint,
 * before anything reads them: two {@code Authorization} headers (Spring Security authenticates
 * the first, and the shop behind may read the other, or both), and an identity header that a
 * trusted proxy sent with more than one value, on two lines or joined by a comma (a proxy that
 * appends to a client's header instead of overwriting it: which one is the proxy's cannot be
 * told). An identity header that is not believed is not read at all, so it is never refused.
 */
public class AmbiguousCredentialsFilter implements WebFilter, Ordered {

    /**
     * Before Spring Security's web filters ({@code WebFilterChainProxy}, order -100), whose bearer
     * token resolution would authenticate the first {@code Authorization} header; after the
     * canonical path check, which looks at nothing else.
     */
    public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 20;

    /** The route tag of a rejection before routing, as the path checks tag theirs. */
    private static final String NO_ROUTE = "(none)";

    private final String identityHeader;
    private final Predicate<ServerWebExchange> identityHeaderBelieved;
    private final QueueResponses responses;
    private final QueueEvents events;

    /**
     * @param identityHeaderBelieved whether a request's identity header is read as its identity
     *                               (a trusted proxy wrote it)
     */
    public AmbiguousCredentialsFilter(String identityHeader, Predicate<ServerWebExchange> identityHeaderBelieved,
            QueueResponses responses, QueueEvents events) {
        this.identityHeader = identityHeader;
        this.identityHeaderBelieved = identityHeaderBelieved;
        this.responses = responses;
        this.events = events;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        QueueError problem = problem(exchange);
        if (problem == null) {
            return chain.filter(exchange);
        }
        events.rejected(NO_ROUTE, problem.code());
        return responses.error(exchange, problem, problem.message(), false);
    }

    private QueueError problem(ServerWebExchange exchange) {
        HttpHeaders headers = exchange.getRequest().getHeaders();
        if (headers.getOrEmpty(HttpHeaders.AUTHORIZATION).size() > 1) {
            return QueueError.AMBIGUOUS_AUTHORIZATION;
        }
        List<String> identities = headers.getOrEmpty(identityHeader);
        if (!identities.isEmpty() && (identities.size() > 1 || identities.get(0).indexOf(',') >= 0)
                && identityHeaderBelieved.test(exchange)) {
            return QueueError.AMBIGUOUS_IDENTITY;
        }
        return null;
    }
}
