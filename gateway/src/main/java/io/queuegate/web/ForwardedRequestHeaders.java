package io.queuegate.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

import io.queuegate.admission.PresentedToken;
import io.queuegate.challenge.ProofOfWork;
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
 * {@code Queue-Challenge} and {@code Queue-Invite} headers, the {@code queue_token} cookie, and a
 * client's {@code Queue-Release} or {@code Queue-Stock} (answer headers of the shop's, never request headers). On a
 * protected route the identity header carries the identity the admission decided, whatever the
 * client sent, and is absent for an anonymous caller: the shop sees exactly who was admitted, and
 * the method override headers ({@link CompletionRule#METHOD_OVERRIDE_HEADERS}) are dropped, so the
 * shop acts on the method {@code complete-on} was compared with. On
 * any other route the identity header reaches the shop only when a trusted proxy wrote it
 * ({@code queuegate.identity.source: header}): a shop's backend can never be told an identity a
 * client made up, on whatever route. Nor under another spelling of the header's name: CGI, WSGI,
 * Rack and PHP hand a backend {@code X_User_Id}, {@code x-user_id} and {@code X-User-Id} alike as
 * {@code HTTP_X_USER_ID}, so every name that folds to the identity header's ({@code _} for
 * {@code -}, any case) is dropped, on every route, and the one spelling QueueGate reads is all
 * that reaches the shop.
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

    private static final String COOKIE_PREFIX = PresentedToken.COOKIE + "=";

    /**
     * Beyond this many {@code -} or {@code _} in the identity header's name, its other spellings
     * are found by reading every name of the request instead of asking for each spelling.
     */
    private static final int MAX_SEPARATORS_LOOKED_UP = 4;

    private final String identityHeader;
    private final String identityHeaderFolded;
    /**
     * The identity header's name with each other mix of {@code -} and {@code _}, in lower case;
     * null: too many to ask for.
     */
    private final List<String> separatorMixes;
    private final Predicate<ServerWebExchange> identityHeaderBelieved;

    /**
     * @param identityHeaderBelieved whether a request's own identity header comes from a trusted
     *                               source (on routes without a queue block, where nothing decided)
     */
    public ForwardedRequestHeaders(String identityHeader, Predicate<ServerWebExchange> identityHeaderBelieved) {
        this.identityHeader = identityHeader;
        this.identityHeaderFolded = folded(identityHeader);
        this.separatorMixes = separatorMixes(identityHeader);
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
        boolean otherSpellings = mayHoldOtherSpellings(input, exchange);
        if (!otherSpellings && !needsChange(input, identity, protectedRoute)) {
            return input;
        }
        // The request's own headers are read-only; any other instance is a copy an earlier
        // filter made for this forwarded request, which may be changed in place.
        HttpHeaders forwarded = input == exchange.getRequest().getHeaders() ? HttpHeaders.copyOf(input) : input;
        PRIVATE_HEADERS.forEach(forwarded::remove);
        if (otherSpellings) {
            otherSpellings(forwarded).forEach(forwarded::remove);
        }
        if (protectedRoute) {
            CompletionRule.METHOD_OVERRIDE_HEADERS.forEach(forwarded::remove);
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

    private boolean needsChange(HttpHeaders input, String identity, boolean protectedRoute) {
        for (String header : PRIVATE_HEADERS) {
            if (input.containsHeader(header)) {
                return true;
            }
        }
        if (protectedRoute) {
            for (String header : CompletionRule.METHOD_OVERRIDE_HEADERS) {
                if (input.containsHeader(header)) {
                    return true;
                }
            }
        }
        if (identity != null && (!identity.isEmpty() || input.containsHeader(identityHeader))) {
            return true;
        }
        for (String cookies : input.getOrEmpty(HttpHeaders.COOKIE)) {
            if (cookies.contains(COOKIE_PREFIX)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the forwarded headers may hold another spelling of the identity header. A name folds
     * to the identity header's exactly when it is one of its separator mixes in any case, so a few
     * lookups answer it for almost every request, where reading every name (a set of them built per
     * call) costs a forwarded request most of a microsecond. The lookups ask the request's own
     * headers, whose names never depend on case, as well as the ones an earlier filter made (which
     * may be a map that does): what a client sent is found either way.
     */
    private boolean mayHoldOtherSpellings(HttpHeaders input, ServerWebExchange exchange) {
        if (separatorMixes == null) {
            // Too many mixes to ask for: every name is read, and folded, so any map's spelling is found.
            return !otherSpellings(input).isEmpty();
        }
        HttpHeaders received = exchange.getRequest().getHeaders();
        for (String spelling : separatorMixes) {
            if (received.containsHeader(spelling) || input != received && input.containsHeader(spelling)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The names in {@code headers} that a backend folding {@code _} into {@code -} and case would
     * read as the identity header, other than the identity header itself (which HTTP already
     * matches in any case), exactly as {@code headers} spells them: removing them takes them
     * away whether its names depend on case or not.
     */
    private List<String> otherSpellings(HttpHeaders headers) {
        List<String> found = List.of();
        for (String name : headers.headerNames()) {
            if (name.length() == identityHeader.length() && !name.equalsIgnoreCase(identityHeader)
                    && folded(name).equals(identityHeaderFolded)) {
                if (found.isEmpty()) {
                    found = new ArrayList<>(2);
                }
                found.add(name);
            }
        }
        return found;
    }

    /**
     * {@code name} in lower case with every other choice of {@code -} or {@code _} at each of its
     * separators ({@code X-User-Id}: {@code x_user-id}, {@code x-user_id}, {@code x_user_id}); null
     * when it has more than {@link #MAX_SEPARATORS_LOOKED_UP} of them. Lower case: a
     * case-insensitive map lowers every name it is asked for, and a name already lower costs it
     * nothing.
     */
    static List<String> separatorMixes(String name) {
        List<Integer> separators = new ArrayList<>();
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) == '-' || name.charAt(i) == '_') {
                separators.add(i);
            }
        }
        if (separators.size() > MAX_SEPARATORS_LOOKED_UP) {
            return null;
        }
        List<String> spellings = new ArrayList<>();
        for (int mix = 0; mix < 1 << separators.size(); mix++) {
            char[] spelling = name.toCharArray();
            for (int bit = 0; bit < separators.size(); bit++) {
                spelling[separators.get(bit)] = (mix & 1 << bit) != 0 ? '_' : '-';
            }
            String candidate = new String(spelling);
            if (!candidate.equals(name)) {
                spellings.add(candidate.toLowerCase(Locale.ROOT));
            }
        }
        return List.copyOf(spellings);
    }

    private static String folded(String name) {
        return name.replace('_', '-').toLowerCase(Locale.ROOT);
    }

    /** Drops the {@code queue_token} pair from every Cookie header, keeping the shop's own cookies. */
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
                if (!trimmed.isEmpty() && !trimmed.startsWith(COOKIE_PREFIX)) {
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
