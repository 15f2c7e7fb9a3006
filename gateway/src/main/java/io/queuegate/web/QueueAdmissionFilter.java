package io.queuegate.web;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.queuegate.admission.Admission;
import io.queuegate.admission.AdmissionRequest;
import io.queuegate.admission.AdmissionService;
import io.queuegate.admission.Caller;
import io.queuegate.admission.Identifiers;
import io.queuegate.admission.PresentedToken;
import io.queuegate.admission.QueueRejection;
import io.queuegate.admission.Refusal;
import io.queuegate.admission.Sessions;
import io.queuegate.challenge.ProofOfWork;
import io.queuegate.config.CompletionRedirect;
import io.queuegate.config.InviteMode;
import io.queuegate.config.QueueGateProperties;
import io.queuegate.config.QueuePolicy;
import io.queuegate.events.Decision;
import io.queuegate.events.QueueEvents;
import io.queuegate.identity.ClientAddresses;
import io.queuegate.identity.IdentityResolver;
import io.queuegate.identity.OnceAMinute;
import io.queuegate.identity.UserIds;
import io.queuegate.invites.InvitationCheck;
import io.queuegate.invites.InvitationVerifier;
import io.queuegate.routes.RouteQueuePolicies;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.core.Ordered;
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

    /**
     * The exchange attribute that holds the {@link Caller} a request was let through as, while its
     * session holds (not on a pass unchecked while Redis cannot answer): what outlives the request
     * (a WebSocket) is tied to that session.
     */
    public static final String ADMITTED_CALLER = QueueAdmissionFilter.class.getName() + ".admittedCaller";

    private static final Log log = LogFactory.getLog(QueueAdmissionFilter.class);

    private final RouteQueuePolicies policies;
    private final AdmissionService admission;
    private final Sessions sessions;
    private final QueueEvents events;
    private final QueueResponses responses;
    private final ClientAddresses clientAddresses;
    private final IdentityResolver identities;
    private final BodyLimit bodyLimit;
    private final InvitationVerifier invitations;
    private final boolean refuseUnknown;
    private final Clock clock;
    /** A gate a route: routes are configured, so few. */
    private final Map<String, OnceAMinute> misconfiguredLogged = new ConcurrentHashMap<>();

    /**
     * @param invitations checks the invitations of routes with {@code invites} on; without a key
     *                    (or {@code null}) such routes answer 503 {@code queue_misconfigured}
     * @param refuseUnknown whether a product {@code queuegate.products} does not list is refused
     *                      ({@code 404 unknown_product}) before any Redis work
     * @param clock the gateway's clock, which spaces out the log lines about a misconfigured route
     */
    public QueueAdmissionFilter(RouteQueuePolicies policies, AdmissionService admission, Sessions sessions,
            QueueEvents events, QueueResponses responses, ClientAddresses clientAddresses, IdentityResolver identities,
            long maxBodyBytes, InvitationVerifier invitations, boolean refuseUnknown, Clock clock) {
        this.refuseUnknown = refuseUnknown;
        this.clock = clock;
        this.policies = policies;
        this.admission = admission;
        this.sessions = sessions;
        this.events = events;
        this.responses = responses;
        this.clientAddresses = clientAddresses;
        this.identities = identities;
        this.bodyLimit = new BodyLimit(maxBodyBytes);
        this.invitations = invitations;
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
        String productId;
        QueuePolicy policy;
        try {
            productId = policies.productId(route,
                    ServerWebExchangeUtils.getUriTemplateVariables(exchange).get(policies.productIdVariable(route)));
            Identifiers.requireProductId(productId, policies.productIdPattern(route));
            if (refuseUnknown && !sessions.isConfigured(productId)) {
                throw new QueueRejection(Refusal.UNKNOWN_PRODUCT, null);
            }
            policy = policies.policy(route, productId);
        }
        catch (QueueRejection rejection) {
            events.rejected(route.getId(), QueueError.of(rejection.reason()).code());
            return responses.rejected(exchange, Admission.Rejected.of(rejection));
        }
        catch (IllegalArgumentException invalidQueueBlock) {
            return misconfigured(exchange, route, invalidQueueBlock);
        }
        boolean invites = policy.invites() != InviteMode.OFF;
        if (invites) {
            ProtectedRequests.noReferrer(exchange);
        }
        if (invites && (invitations == null || !invitations.hasKeys())) {
            // A route changed at runtime to ask for invitations that nothing here can check.
            return misconfigured(exchange, route, new IllegalArgumentException("invites is "
                    + policy.invites().name().toLowerCase(java.util.Locale.ROOT)
                    + ", but no invitation key is configured: " + QueueGateProperties.Invites.WHICH_KEY));
        }
        ServerHttpRequest request = exchange.getRequest();
        if (bodyLimit.declaredTooLarge(request)) {
            return tooLarge(exchange, route.getId());
        }
        // Compared with the path as received, before any rewrite filter of the route runs.
        boolean completing = policy.completeOn().matches(request);
        long started = System.nanoTime();
        // The shop never sees the invitation: on these routes the link's parameter is QueueGate's.
        ServerWebExchange forwardable = invites ? PresentedInvitation.withoutParameter(exchange) : exchange;
        boolean cleanAddressBar = forwardable != exchange && !completing && ProtectedRequests.browserNavigation(request);
        return identities.resolve(exchange)
                .map(Optional::of)
                .defaultIfEmpty(Optional.empty())
                .flatMap(identity -> admission.admit(new AdmissionRequest(productId, identity.orElse(null),
                                PresentedToken.of(request), policy, ProtectedRequests.clientAddress(clientAddresses, request), route.getId(),
                                completing, invites ? PresentedInvitation.check(request, invitations, productId,
                                        identity.orElse(null)) : InvitationCheck.ABSENT,
                                request.getHeaders().getFirst(ProofOfWork.HEADER), ProtectedRequests.waitTicket(request)))
                        .flatMap(decision -> act(forwardable, chain, decision,
                                new Asked(route.getId(), productId, identity.orElse(null), policy::displayName,
                                        cleanAddressBar, policy.completeOnRedirect() == CompletionRedirect.SALE),
                                Duration.ofNanos(System.nanoTime() - started))));
    }

    /**
     * What the decision is answered with, beside the decision itself.
     *
     * @param identity the caller's identity, {@code null} for an anonymous caller
     * @param displayName what a page in a language calls the product ({@code null} for its id)
     * @param cleanAddressBar whether an admitted browser is sent to the address without its invitation
     * @param redirectIsSale whether a {@code 3xx} answer to the completing request is a sale
     */
    private record Asked(String routeId, String productId, String identity, Function<Locale, String> displayName,
            boolean cleanAddressBar, boolean redirectIsSale) {
    }

    /**
     * A browser admitted at once is sent to the address without the invitation, with its token
     * cookie: the shop's page would otherwise show the invitation in the address bar, to be
     * bookmarked or shared (a waiting browser's page takes it out by itself). Only a
     * non-completing GET: a redirect would lose a POST's body, and a purchase has taken the
     * session's completion claim, so its repetition would be refused.
     */
    private Mono<Void> withoutInvitation(ServerWebExchange forwardable, Admission.Active active) {
        responses.attachToken(forwardable, active.issuedToken());
        URI stripped = forwardable.getRequest().getURI();
        String location = stripped.getRawPath() + (stripped.getRawQuery() == null ? "" : "?" + stripped.getRawQuery());
        return responses.seeOther(forwardable, URI.create(location));
    }

    /**
     * A route whose queue block is invalid (added or changed at runtime: a startup with one does
     * not start) answers 503 and is never forwarded unqueued; the operators hear of it at most once
     * a minute per route.
     */
    private Mono<Void> misconfigured(ServerWebExchange exchange, Route route, IllegalArgumentException problem) {
        if (misconfiguredLogged.computeIfAbsent(route.getId(), id -> new OnceAMinute(clock)).open()) {
            log.error("Route '" + route.getId() + "' has an invalid queue block; its requests are answered 503 "
                    + "queue_misconfigured until it is fixed: " + problem.getMessage());
        }
        events.rejected(route.getId(), QueueError.QUEUE_MISCONFIGURED.code());
        return responses.error(exchange, QueueError.QUEUE_MISCONFIGURED, QueueError.QUEUE_MISCONFIGURED.message(),
                false, 30);
    }

    /** Reports the decision (metrics, the audit log) and answers it: one branch per kind of decision. */
    private Mono<Void> act(ServerWebExchange exchange, GatewayFilterChain chain, Admission decision, Asked asked,
            Duration took) {
        String routeId = asked.routeId();
        if (decision instanceof Admission.Active active) {
            events.decided(routeId, Decision.ACTIVE, took);
            return asked.cleanAddressBar() ? withoutInvitation(exchange, active)
                    : forward(exchange, chain, active, routeId, asked.redirectIsSale());
        }
        if (decision instanceof Admission.Waiting waiting) {
            events.decided(routeId, Decision.WAITING, took);
            return responses.waiting(exchange, waiting, asked.displayName());
        }
        if (decision instanceof Admission.Rejected rejected) {
            refused(routeId, QueueError.of(rejected.reason()), took);
            return responses.rejected(exchange, rejected, asked.productId(), asked.displayName());
        }
        if (decision instanceof Admission.Challenged challenged) {
            refused(routeId, QueueError.of(challenged.reason()), took);
            return responses.challenged(exchange, challenged);
        }
        if (decision instanceof Admission.Unavailable) {
            events.rejected(routeId, QueueError.QUEUE_UNAVAILABLE.code());
            events.decided(routeId, Decision.UNAVAILABLE, took);
            return responses.unavailable(exchange);
        }
        events.failOpenPass(asked.productId(), routeId);
        events.decided(routeId, Decision.UNCHECKED, took);
        // Forwarded unchecked while Redis is down: the identity is still the one the request proves.
        exchange.getAttributes().put(ForwardedRequestHeaders.IDENTITY,
                asked.identity() == null ? ForwardedRequestHeaders.ANONYMOUS : UserIds.forwardable(asked.identity()));
        return bodyLimited(exchange, chain, routeId);
    }

    private void refused(String routeId, QueueError error, Duration took) {
        events.rejected(routeId, error.code());
        events.decided(routeId, Decision.REJECTED, took);
    }

    private Mono<Void> forward(ServerWebExchange exchange, GatewayFilterChain chain, Admission.Active active,
            String routeId, boolean redirectIsSale) {
        responses.attachToken(exchange, active.issuedToken());
        Caller caller = active.caller();
        exchange.getAttributes().put(ADMITTED_CALLER, caller);
        String forwardedIdentity = caller.forwardedIdentity();
        exchange.getAttributes().put(ForwardedRequestHeaders.IDENTITY,
                forwardedIdentity == null ? ForwardedRequestHeaders.ANONYMOUS : forwardedIdentity);
        Completion completion = new Completion(sessions, caller, routeId, active.claim(), active.madePlace(),
                redirectIsSale, clock.millis());
        // Before the answer leaves, so a client that sees its order succeed can no longer pass.
        exchange.getResponse().beforeCommit(() -> completion.end(exchange));
        // The token itself stays here: ForwardedRequestHeaders leaves it out of the forwarded request.
        return bodyLimited(exchange, chain, routeId);
    }

    private Mono<Void> bodyLimited(ServerWebExchange exchange, GatewayFilterChain chain, String routeId) {
        return chain.filter(bodyLimit.counted(exchange))
                .onErrorResume(BodyLimit.TooLarge.class, tooLarge -> exchange.getResponse().isCommitted()
                        ? Mono.error(tooLarge) : tooLarge(exchange, routeId));
    }

    private Mono<Void> tooLarge(ServerWebExchange exchange, String routeId) {
        events.rejected(routeId, QueueError.CONTENT_TOO_LARGE.code());
        return responses.error(exchange, QueueError.CONTENT_TOO_LARGE,
                "the request body is larger than " + bodyLimit.maxBytes() + " bytes", false);
    }
}
