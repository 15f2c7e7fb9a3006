package io.queuegate.web;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

import io.queuegate.admission.Admission;
import io.queuegate.admission.Caller;
import io.queuegate.admission.CallerResolver;
import io.queuegate.admission.PresentedToken;
import io.queuegate.admission.QueueRejection;
import io.queuegate.admission.Refusal;
import io.queuegate.admission.RetryAfter;
import io.queuegate.admission.Sessions;
import io.queuegate.admission.WaitEstimate;
import io.queuegate.identity.ClientAddresses;
import io.queuegate.identity.IdentityResolver;
import io.queuegate.identity.RequestOrigin;
import io.queuegate.live.LiveStatus;
import io.queuegate.live.StreamLimits;
import io.queuegate.room.Placement;
import io.queuegate.room.Stock;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Mono;

/**
 * {@code GET /queue/{productId}/status}, {@code GET /queue/{productId}/events} and
 * {@code DELETE /queue/{productId}}: a token holder asks where they stand, follows it live, or
 * gives up their place; {@code POST /queue/{productId}/leave} gives it up from the waiting page's
 * form (so without JavaScript too), and {@code GET /queue/language/{tag}} keeps the shopper's
 * choice of language for the pages. None is ever forwarded, and none joins.
 */
public class QueueEndpoints {

    public static final String STATUS_PATH = QueuePaths.PREFIX + "{productId}/status";
    public static final String EVENTS_PATH = QueuePaths.PREFIX + "{productId}/events";
    public static final String LEAVE_PATH = QueuePaths.PREFIX + "{productId}";
    public static final String LEAVE_FORM_PATH = QueuePaths.PREFIX + "{productId}/leave";
    public static final String LANGUAGE_PATH = PageLanguages.PATH + "{tag}";

    private final CallerResolver callers;
    private final Sessions sessions;
    private final QueueResponses responses;
    private final LiveStatus live;
    private final IdentityResolver identities;
    private final ClientAddresses clientAddresses;
    private final StreamLimits streams;
    private final ProductNames names;

    public QueueEndpoints(CallerResolver callers, Sessions sessions, QueueResponses responses, LiveStatus live,
            IdentityResolver identities, ClientAddresses clientAddresses, StreamLimits streams) {
        this(callers, sessions, responses, live, identities, clientAddresses, streams, ProductNames.IDS);
    }

    /** @param names what the page after a leave calls a product */
    public QueueEndpoints(CallerResolver callers, Sessions sessions, QueueResponses responses, LiveStatus live,
            IdentityResolver identities, ClientAddresses clientAddresses, StreamLimits streams, ProductNames names) {
        this.names = names;
        this.callers = callers;
        this.sessions = sessions;
        this.responses = responses;
        this.live = live;
        this.identities = identities;
        this.clientAddresses = clientAddresses;
        this.streams = streams;
    }

    public RouterFunction<ServerResponse> routes() {
        return RouterFunctions.route()
                .GET(STATUS_PATH, this::status)
                .GET(EVENTS_PATH, this::events)
                .DELETE(LEAVE_PATH, this::leave)
                .POST(LEAVE_FORM_PATH, this::leaveByForm)
                .GET(LANGUAGE_PATH, this::language)
                .build();
    }

    /**
     * Answered from this instance's view of the line when the token carries the caller's ticket;
     * else from Redis, and then a token due to be signed again (or one without a ticket yet, or of
     * another epoch of Redis's data) is signed anew, so a page that only polls here never ends with
     * an expired token. After Redis forgot, what the token proves comes back here too.
     */
    private Mono<ServerResponse> status(ServerRequest request) {
        return withCaller(request, (exchange, caller) -> written(sessions.status(caller).flatMap(standing -> {
            if (standing.newToken() != null) {
                responses.attachToken(exchange, standing.newToken());
            }
            return responses.status(exchange, HttpStatus.OK, body(caller, standing));
        })));
    }

    /** Server-sent events: the caller's place as it changes, then {@code active} once admitted. */
    private Mono<ServerResponse> events(ServerRequest request) {
        return withCaller(request, (exchange, caller) -> {
            StreamLimits.Lease lease = streams.open(caller.productId(), caller.userId(),
                    ClientAddresses.network(clientAddresses.of(exchange.getRequest())));
            if (lease == null) {
                return written(responses.error(exchange, QueueError.TOO_MANY_STREAMS,
                        QueueError.TOO_MANY_STREAMS.message(), false, RetryAfter.MAX_SECONDS));
            }
            exchange.getAttributes().put(StreamLeaseRelease.LEASE, lease);
            return ServerResponse.ok()
                    .contentType(MediaType.TEXT_EVENT_STREAM)
                    .header("Cache-Control", "no-store")
                    // Proxies such as nginx would otherwise hold the events back in a buffer.
                    .header("X-Accel-Buffering", "no")
                    .body(BodyInserters.fromServerSentEvents(live.events(caller).doFinally(signal -> lease.close())));
        });
    }

    private Mono<ServerResponse> leave(ServerRequest request) {
        return withCaller(request, (exchange, caller) -> written(sessions.leave(caller).flatMap(held -> {
            responses.clearTokenCookie(exchange);
            String status = held ? "LEFT" : Placement.State.NOT_FOUND.name();
            return responses.status(exchange, HttpStatus.OK,
                    new StatusBody(status, caller.productId(), caller.userId(), null, null, null));
        })));
    }

    /**
     * The waiting page's "leave the line" form: the same as {@code DELETE}, answered with a page
     * that says so for a browser. Refused ({@code 403 cross_site_request}) when the browser says a
     * page of another origin sent it: the token cookie (SameSite=Lax) already stays home from a
     * cross-site form, and this holds without it. A browser whose place is already gone (the form
     * sent twice) is told the same as the first time.
     */
    private Mono<ServerResponse> leaveByForm(ServerRequest request) {
        ServerWebExchange exchange = request.exchange();
        if (RequestOrigin.crossSite(exchange.getRequest())) {
            return written(responses.error(exchange, QueueError.CROSS_SITE_REQUEST,
                    QueueError.CROSS_SITE_REQUEST.message(), false));
        }
        String productId = request.pathVariable("productId");
        return request.formData().flatMap(form -> {
            String back = form.getFirst("back");
            if (responses.wantsPage(exchange) && PresentedToken.of(exchange.getRequest()) == null) {
                return written(responses.left(exchange, names.of(productId, responses.locale(exchange)), back));
            }
            return withCaller(request, (ex, caller) -> written(sessions.leave(caller).flatMap(held -> {
                if (responses.wantsPage(ex)) {
                    return responses.left(ex, names.of(caller.productId(), responses.locale(ex)), back);
                }
                responses.clearTokenCookie(ex);
                return responses.status(ex, HttpStatus.OK, new StatusBody(held ? "LEFT"
                        : Placement.State.NOT_FOUND.name(), caller.productId(), caller.userId(), null, null, null));
            })));
        });
    }

    /**
     * The pages' language switch: keeps the language as the shopper's choice (when it is one the
     * pages offer) and sends the browser back to the page it came from ({@code back}, a path on
     * this origin; anything else goes to the site's root).
     */
    private Mono<ServerResponse> language(ServerRequest request) {
        ServerWebExchange exchange = request.exchange();
        Locale chosen = responses.languages().offered(request.pathVariable("tag"));
        return written(responses.languageChosen(exchange, chosen, request.queryParam("back").orElse(null)));
    }

    /** The status answer: the commitment of a pre-queue draw and the stock are shown to those in line. */
    static StatusBody body(Caller caller, Sessions.Standing standing) {
        Placement placement = standing.placement();
        Instant opensAt = standing.opensAt();
        Duration abandonAfter = standing.abandonAfter();
        String seedCommitment = standing.seedCommitment();
        Stock stock = standing.stock();
        Instant now = standing.at();
        Long unitsLeft = stock == null ? null : stock.left();
        if (placement.state() == Placement.State.PRE_QUEUE && opensAt != null) {
            long retryAfter = RetryAfter.beforeOpening(Duration.between(now, opensAt), abandonAfter);
            return new StatusBody(placement.state().name(), caller.productId(), caller.userId(), null, retryAfter, null,
                    opensAt.toString(), seedCommitment, unitsLeft, null);
        }
        if (placement.state() == Placement.State.SOLD_OUT) {
            return new StatusBody(placement.state().name(), caller.productId(), caller.userId(), null, null, null, null,
                    null, 0L, null);
        }
        if (placement.state() != Placement.State.WAITING) {
            return new StatusBody(placement.state().name(), caller.productId(), caller.userId(), null, null, null);
        }
        Long estimate = WaitEstimate.seconds(placement.rank(), placement.admissionRate());
        return new StatusBody(placement.state().name(), caller.productId(), caller.userId(), placement.rank(),
                RetryAfter.of(placement.rank(), estimate, abandonAfter), estimate, null, seedCommitment, unitsLeft,
                stock == null ? null : stock.serves(placement.rank()));
    }

    /**
     * Checks product, identity and token like the filter does, then runs {@code action} for that
     * caller. A token alone is enough here: the waiting page's requests and its
     * {@code EventSource} carry the cookie, not a signed-in shopper's bearer token.
     */
    private Mono<ServerResponse> withCaller(ServerRequest request, CallerAction action) {
        ServerWebExchange exchange = request.exchange();
        PresentedToken presented = PresentedToken.of(exchange.getRequest());
        return identities.resolve(exchange)
                .map(Optional::of)
                .defaultIfEmpty(Optional.empty())
                .flatMap(identity -> {
                    Caller caller;
                    try {
                        // No route here to say whether the product binds its tokens: a token that is
                        // bound is held to its network; a refusal never drops the page's cookie.
                        caller = callers.resolve(request.pathVariable("productId"), identity.orElse(null), presented,
                                CallerResolver.NetworkCheck.IF_BOUND, () -> clientAddresses.of(exchange.getRequest()));
                        if (!caller.hasToken()) {
                            throw new QueueRejection(Refusal.INVALID_TOKEN,
                                    "no queue token for this product was presented");
                        }
                    }
                    catch (QueueRejection rejection) {
                        return written(responses.rejected(exchange, Admission.Rejected.of(rejection)));
                    }
                    return action.run(exchange, caller);
                })
                .onErrorResume(Sessions::unavailable, error -> written(responses.unavailable(exchange)));
    }

    /** The answer is already written to the exchange; this only tells WebFlux it is done. */
    private static Mono<ServerResponse> written(Mono<Void> writing) {
        return writing.then(Mono.empty());
    }

    @FunctionalInterface
    private interface CallerAction {
        Mono<ServerResponse> run(ServerWebExchange exchange, Caller caller);
    }
}
