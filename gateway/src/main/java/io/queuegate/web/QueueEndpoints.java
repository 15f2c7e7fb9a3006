package io.queuegate.web;

import io.queuegate.admission.Caller;
import io.queuegate.admission.CallerResolver;
import io.queuegate.admission.PresentedToken;
import io.queuegate.admission.QueueRejection;
import io.queuegate.admission.RedisFailures;
import io.queuegate.store.Placement;
import io.queuegate.store.QueueStore;

import org.springframework.http.HttpStatus;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Mono;

/**
 * {@code GET /queue/{productId}/status} and {@code DELETE /queue/{productId}}: a token holder
 * asks where they stand, or gives up their place. Neither is ever forwarded, and status never
 * joins.
 */
public class QueueEndpoints {

    public static final String STATUS_PATH = "/queue/{productId}/status";
    public static final String LEAVE_PATH = "/queue/{productId}";

    private final CallerResolver callers;
    private final QueueStore store;
    private final QueueResponses responses;
    private final String userIdHeader;

    public QueueEndpoints(CallerResolver callers, QueueStore store, QueueResponses responses, String userIdHeader) {
        this.callers = callers;
        this.store = store;
        this.responses = responses;
        this.userIdHeader = userIdHeader;
    }

    public RouterFunction<ServerResponse> routes() {
        return RouterFunctions.route()
                .GET(STATUS_PATH, this::status)
                .DELETE(LEAVE_PATH, this::leave)
                .build();
    }

    private Mono<ServerResponse> status(ServerRequest request) {
        return withCaller(request, (exchange, caller) -> store.status(caller.productId(), caller.userId())
                .flatMap(placement -> responses.status(exchange, HttpStatus.OK, body(caller, placement))));
    }

    private Mono<ServerResponse> leave(ServerRequest request) {
        return withCaller(request, (exchange, caller) -> store.leave(caller.productId(), caller.userId())
                .flatMap(held -> {
                    responses.clearTokenCookie(exchange);
                    String status = held ? "LEFT" : Placement.State.NOT_FOUND.name();
                    return responses.status(exchange, HttpStatus.OK,
                            new StatusBody(status, caller.productId(), caller.userId(), null, null));
                }));
    }

    private static StatusBody body(Caller caller, Placement placement) {
        boolean waiting = placement.state() == Placement.State.WAITING;
        return new StatusBody(placement.state().name(), caller.productId(), caller.userId(),
                waiting ? placement.rank() : null, waiting ? RetryAfter.forRank(placement.rank()) : null);
    }

    /** Checks product, user and token like the filter does, then runs {@code action} for that caller. */
    private Mono<ServerResponse> withCaller(ServerRequest request, CallerAction action) {
        ServerWebExchange exchange = request.exchange();
        PresentedToken presented = PresentedToken.of(exchange.getRequest());
        Caller caller;
        try {
            caller = callers.resolve(request.pathVariable("productId"),
                    exchange.getRequest().getHeaders().getFirst(userIdHeader), presented);
            if (!caller.hasToken()) {
                throw new QueueRejection(QueueError.INVALID_TOKEN, "no queue token for this product was presented");
            }
        }
        catch (QueueRejection rejection) {
            return written(responses.error(exchange, rejection.error(), rejection.getMessage(), rejection.clearCookie()));
        }
        return written(action.run(exchange, caller)
                .onErrorResume(RedisFailures::isRedisFailure, error -> responses.unavailable(exchange)));
    }

    /** The answer is already written to the exchange; this only tells WebFlux it is done. */
    private static Mono<ServerResponse> written(Mono<Void> writing) {
        return writing.then(Mono.empty());
    }

    @FunctionalInterface
    private interface CallerAction {
        Mono<Void> run(ServerWebExchange exchange, Caller caller);
    }
}
