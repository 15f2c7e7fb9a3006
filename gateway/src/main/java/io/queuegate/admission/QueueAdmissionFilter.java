package io.queuegate.admission;

import java.time.Duration;

import io.queuegate.config.QueuePolicy;
import io.queuegate.config.RouteQueuePolicies;
import io.queuegate.store.QueueStore;
import io.queuegate.web.QueueError;
import io.queuegate.web.QueueResponses;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Mono;

/**
 * The waiting room: on routes whose metadata has a {@code queue} block, lets a request through
 * only while its caller holds one of the product's places, answers everyone else with their
 * place in line, and frees the place when the route's {@code complete-on} request succeeds.
 */
public class QueueAdmissionFilter implements GlobalFilter, Ordered {

    /**
     * Early, so a waiting caller costs no other filter's work, but after Spring Security's web
     * filters (which run before every gateway filter) have set the caller's identity.
     */
    public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 1000;

    /** A backend's way to end the caller's session with any response, for shops whose purchase is not one route. */
    public static final String RELEASE_HEADER = "Queue-Release";

    private static final Log log = LogFactory.getLog(QueueAdmissionFilter.class);

    private final RouteQueuePolicies policies;
    private final AdmissionService admission;
    private final QueueStore store;
    private final QueueResponses responses;
    private final ClientAddresses clientAddresses;
    private final String userIdHeader;
    private final long maxBodyBytes;

    public QueueAdmissionFilter(RouteQueuePolicies policies, AdmissionService admission, QueueStore store,
            QueueResponses responses, ClientAddresses clientAddresses, String userIdHeader, long maxBodyBytes) {
        this.policies = policies;
        this.admission = admission;
        this.store = store;
        this.responses = responses;
        this.clientAddresses = clientAddresses;
        this.userIdHeader = userIdHeader;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        Route route = exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR);
        if (!RouteQueuePolicies.isProtected(route)) {
            return chain.filter(exchange);
        }
        String productId = ServerWebExchangeUtils.getUriTemplateVariables(exchange)
                .get(policies.productIdVariable(route));
        try {
            Identifiers.requireProductId(productId);
        }
        catch (QueueRejection rejection) {
            store.events().rejected(route.getId(), rejection.error().code());
            return responses.rejected(exchange, Admission.Rejected.of(rejection));
        }
        ServerHttpRequest request = exchange.getRequest();
        if (request.getHeaders().getContentLength() > maxBodyBytes) {
            store.events().rejected(route.getId(), QueueError.CONTENT_TOO_LARGE.code());
            return responses.error(exchange, QueueError.CONTENT_TOO_LARGE,
                    "the request body is larger than " + maxBodyBytes + " bytes", false);
        }
        QueuePolicy policy = policies.policy(route, productId);
        String userId = request.getHeaders().getFirst(userIdHeader);
        long started = System.nanoTime();
        return admission.admit(productId, userId, PresentedToken.of(request), policy, () -> clientAddresses.of(request),
                        route.getId())
                .flatMap(decision -> {
                    report(route.getId(), productId, decision, Duration.ofNanos(System.nanoTime() - started));
                    return act(exchange, chain, decision, policy, route.getId());
                });
    }

    private void report(String routeId, String productId, Admission decision, Duration took) {
        String outcome;
        if (decision instanceof Admission.Active) {
            outcome = "active";
        }
        else if (decision instanceof Admission.Waiting) {
            outcome = "waiting";
        }
        else if (decision instanceof Admission.Rejected rejected) {
            outcome = "rejected";
            store.events().rejected(routeId, rejected.error().code());
        }
        else if (decision instanceof Admission.Unavailable) {
            outcome = "unavailable";
            store.events().rejected(routeId, QueueError.QUEUE_UNAVAILABLE.code());
        }
        else {
            outcome = "unchecked";
            store.events().failOpenPass(productId, routeId);
        }
        store.events().decided(routeId, outcome, took);
    }

    private Mono<Void> act(ServerWebExchange exchange, GatewayFilterChain chain, Admission decision,
            QueuePolicy policy, String routeId) {
        if (decision instanceof Admission.Active active) {
            return forward(exchange, chain, active, policy, routeId);
        }
        if (decision instanceof Admission.Waiting waiting) {
            return responses.waiting(exchange, waiting);
        }
        if (decision instanceof Admission.Rejected rejected) {
            return responses.rejected(exchange, rejected);
        }
        if (decision instanceof Admission.Unavailable) {
            return responses.unavailable(exchange);
        }
        // Forwarded unchecked while Redis is down: nothing to release, but the header stays private.
        exchange.getResponse().beforeCommit(() -> {
            exchange.getResponse().getHeaders().remove(RELEASE_HEADER);
            return Mono.empty();
        });
        return chain.filter(exchange);
    }

    private Mono<Void> forward(ServerWebExchange exchange, GatewayFilterChain chain, Admission.Active active,
            QueuePolicy policy, String routeId) {
        responses.attachToken(exchange, active.issuedToken());
        boolean completes = policy.completeOn().matches(exchange.getRequest());
        // Before the answer leaves, so a client that sees its order succeed can no longer pass.
        exchange.getResponse().beforeCommit(() -> endIfDone(exchange, active.caller(), routeId, completes));
        // The token itself stays here: QueueTokenHeadersFilter leaves it out of the forwarded request.
        return chain.filter(exchange);
    }

    /**
     * Ends the session when the backend says so ({@code Queue-Release: true}, on any status) or
     * when this was the route's {@code complete-on} request and it succeeded. The header is
     * removed either way: it is between the backend and the gateway.
     */
    private Mono<Void> endIfDone(ServerWebExchange exchange, Caller caller, String routeId, boolean completes) {
        HttpHeaders headers = exchange.getResponse().getHeaders();
        boolean released = "true".equalsIgnoreCase(headers.getFirst(RELEASE_HEADER));
        headers.remove(RELEASE_HEADER);
        HttpStatusCode status = exchange.getResponse().getStatusCode();
        boolean completed = completes && status != null && status.is2xxSuccessful();
        if (!released && !completed) {
            return Mono.empty();
        }
        admission.released(caller.productId(), caller.userId());
        return store.complete(caller.productId(), caller.userId())
                .doOnNext(held -> {
                    if (held) {
                        store.events().completed(caller.productId(), routeId, caller.userId());
                    }
                })
                .then()
                .onErrorResume(error -> {
                    if (RedisFailures.isRedisFailure(error)) {
                        store.events().redisFailure(caller.productId(), "completion", error);
                    }
                    // The purchase went through; a failed release only costs the session's ttl.
                    log.warn("Could not end the session of a completed request for product "
                            + caller.productId() + "; the place frees when the session expires: " + error);
                    return Mono.empty();
                });
    }
}
