package io.queuegate.web;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import io.queuegate.admission.PresentedToken;
import io.queuegate.challenge.ProofOfWork;
import io.queuegate.challenge.WaitTickets;
import io.queuegate.config.CompletionRule;
import io.queuegate.routes.RouteQueuePolicies;

import org.springframework.cloud.gateway.filter.headers.HttpHeadersFilter;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.web.server.ServerWebExchange;

/**
 * What the shop receives of a forwarded request. On every route, the waiting room's own
 * credentials stay between the shopper and the gateway: the {@code Queue-Token},
 * {@code Queue-Challenge} and {@code Queue-Invite} headers, the {@code queue_token} and {@code queue_wait} cookies, and a
 * client's {@code Queue-Release} or {@code Queue-Stock} (answer headers of the shop's, never request headers). On a
 * protected route the identity header carries the identity the admission decided, whatever the
 * client sent, and is absent for an anonymous caller: the shop sees exactly who was admitted, and
 * the method override headers ({@link CompletionRule#METHOD_OVERRIDE_HEADERS}) are dropped, so the
 * shop acts on the method {@code complete-on} was compared with. On
 * any other route the identity header reaches the shop only when a trusted proxy wrote it
 * ({@code queuegate.identity.source: header}): a shop's backend can never be told an identity a
 * client made up, on whatever route. Nor under another spelling of a header's name: CGI, WSGI,
 * Rack and PHP hand a backend {@code X_User_Id}, {@code x-user_id} and {@code X-User-Id} alike as
 * {@code HTTP_X_USER_ID} ({@link HeaderSpellings}), so every name that folds to the identity
 * header's ({@code _} for {@code -}, any case) is dropped, on every route, and the one spelling
 * QueueGate reads is all that reaches the shop; on a protected route, so is every name that folds to
 * a method override header's ({@code X_HTTP_Method_Override}).
 *
 * <p>It runs last among Spring Cloud Gateway's header filters, inside the copy of the request
 * headers they make for the forwarded request anyway, and copies nothing when there is nothing to
 * change.
 */
public class ForwardedRequestHeaders implements HttpHeadersFilter, Ordered {

    /** After the gateway's own header filters (the hop-by-hop filter runs just before it). */
    public static final int ORDER = Ordered.LOWEST_PRECEDENCE;

    /** Request headers that are QueueGate's and never the shop's. */
    static final List<String> PRIVATE_HEADERS = List.of(PresentedToken.HEADER, ReleaseHeader.NAME, StockHeader.NAME,
            ProofOfWork.HEADER, PresentedInvitation.HEADER);

    /**
     * The exchange attribute holding the identity to forward on a protected route: the user id,
     * or {@link #ANONYMOUS} for none. Set by the admission filter before it forwards.
     */
    static final String IDENTITY = ForwardedRequestHeaders.class.getName() + ".identity";

    static final String ANONYMOUS = "";

    /** QueueGate's own cookies, never the shop's: the token and the wait ticket. */
    private static final List<String> COOKIE_PREFIXES = List.of(PresentedToken.COOKIE + "=",
            WaitTickets.COOKIE + "=");

    /** The method override headers, each with the other spellings a backend reads as it. */
    private static final List<HeaderSpellings> METHOD_OVERRIDES = CompletionRule.METHOD_OVERRIDE_HEADERS.stream()
            .map(HeaderSpellings::new).toList();

    private final String identityHeader;
    private final HeaderSpellings identitySpellings;
    private final Predicate<ServerWebExchange> identityHeaderBelieved;

    /**
     * @param identityHeaderBelieved whether a request's own identity header comes from a trusted
     *                               source (on routes without a queue block, where nothing decided)
     */
    public ForwardedRequestHeaders(String identityHeader, Predicate<ServerWebExchange> identityHeaderBelieved) {
        this.identityHeader = identityHeader;
        this.identitySpellings = new HeaderSpellings(identityHeader);
        this.identityHeaderBelieved = identityHeaderBelieved;
    }

    @Override
    public HttpHeaders filter(HttpHeaders input, ServerWebExchange exchange) {
        Route route = exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR);
        String identity;
        boolean protectedRoute = RouteQueuePolicies.isProtected(route);
        if (protectedRoute) {
            String decided = exchange.getAttribute(IDENTITY);
            identity = decided != null ? decided : ANONYMOUS;
        }
        else {
            // Nothing decided here: the header goes on as a trusted proxy wrote it, or not at all.
            identity = input.containsHeader(identityHeader) && !identityHeaderBelieved.test(exchange) ? ANONYMOUS : null;
        }
        HttpHeaders received = exchange.getRequest().getHeaders();
        boolean otherSpellings = identitySpellings.mayBeIn(input, received);
        boolean methodOverrides = protectedRoute && mayHoldMethodOverride(input, received);
        if (!otherSpellings && !methodOverrides && !needsChange(input, identity)) {
            return input;
        }
        // The request's own headers are read-only; any other instance is a copy an earlier
        // filter made for this forwarded request, which may be changed in place.
        HttpHeaders forwarded = input == received ? HttpHeaders.copyOf(input) : input;
        PRIVATE_HEADERS.forEach(forwarded::remove);
        if (otherSpellings) {
            identitySpellings.in(forwarded).forEach(forwarded::remove);
        }
        if (methodOverrides) {
            for (HeaderSpellings override : METHOD_OVERRIDES) {
                override.allIn(forwarded).forEach(forwarded::remove);
            }
        }
        withoutQueueCookie(forwarded);
        if (identity != null) {
            if (identity.isEmpty()) {
                forwarded.remove(identityHeader);
            }
            else {
                forwarded.set(identityHeader, identity);
            }
        }
        return forwarded;
    }

    private boolean needsChange(HttpHeaders input, String identity) {
        for (String header : PRIVATE_HEADERS) {
            if (input.containsHeader(header)) {
                return true;
            }
        }
        if (identity != null && (!identity.isEmpty() || input.containsHeader(identityHeader))) {
            return true;
        }
        for (String cookies : input.getOrEmpty(HttpHeaders.COOKIE)) {
            for (String prefix : COOKIE_PREFIXES) {
                if (cookies.contains(prefix)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether the forwarded headers may hold a method override header, in any spelling a backend reads as one. */
    private static boolean mayHoldMethodOverride(HttpHeaders input, HttpHeaders received) {
        for (HeaderSpellings override : METHOD_OVERRIDES) {
            if (received.containsHeader(override.name()) || input != received && input.containsHeader(override.name())
                    || override.mayBeIn(input, received)) {
                return true;
            }
        }
        return false;
    }

    /** Drops QueueGate's pairs from every Cookie header, keeping the shop's own cookies. */
    private static void withoutQueueCookie(HttpHeaders headers) {
        List<String> values = headers.getOrEmpty(HttpHeaders.COOKIE);
        if (values.isEmpty()) {
            return;
        }
        List<String> kept = new ArrayList<>(values.size());
        for (String value : values) {
            List<String> pairs = new ArrayList<>();
            for (String pair : value.split(";")) {
                String trimmed = pair.trim();
                if (!trimmed.isEmpty() && COOKIE_PREFIXES.stream().noneMatch(trimmed::startsWith)) {
                    pairs.add(trimmed);
                }
            }
            if (!pairs.isEmpty()) {
                kept.add(String.join("; ", pairs));
            }
        }
        if (kept.isEmpty()) {
            headers.remove(HttpHeaders.COOKIE);
        }
        else {
            headers.put(HttpHeaders.COOKIE, kept);
        }
    }

    @Override
    public boolean supports(Type type) {
        return type == Type.REQUEST;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
