package io.queuegate.web;

import java.util.function.Supplier;

import io.queuegate.challenge.WaitTickets;
import io.queuegate.identity.ClientAddresses;

import org.springframework.http.HttpMethod;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Mono;

/** What the waiting room reads from a request on a protected route, and sets on every answer to it. */
final class ProtectedRequests {

    private static final String REFERRER_POLICY = "Referrer-Policy";

    private ProtectedRequests() {
    }

    /**
     * Every answer on a route that reads invitations, the shop's too (whatever policy it set),
     * keeps the browser from sending the address on as a {@code Referer}: that address may hold
     * an invitation, which the page's scripts, images and links would otherwise hand to other
     * sites and the shop's own logs. Set as the answer leaves, after the shop's headers are in.
     */
    static void noReferrer(ServerWebExchange exchange) {
        exchange.getResponse().beforeCommit(() -> {
            exchange.getResponse().getHeaders().set(REFERRER_POLICY, "no-referrer");
            return Mono.empty();
        });
    }

    /** A browser loading a page (a link, the address bar): only then is there an address bar to clean. */
    static boolean browserNavigation(ServerHttpRequest request) {
        return HttpMethod.GET.equals(request.getMethod()) && AcceptHeader.prefersHtml(request);
    }

    /** The wait ticket a browser brings back in its cookie (the first, when it sends several), or {@code null}. */
    static String waitTicket(ServerHttpRequest request) {
        var cookie = request.getCookies().getFirst(WaitTickets.COOKIE);
        return cookie == null ? null : cookie.getValue();
    }

    /**
     * The request's client address, worked out on first use and then kept: a join, a bound
     * token and a token issued may each ask for it.
     */
    static Supplier<String> clientAddress(ClientAddresses clientAddresses, ServerHttpRequest request) {
        String[] known = new String[1];
        return () -> {
            if (known[0] == null) {
                known[0] = clientAddresses.of(request);
            }
            return known[0];
        };
    }
}
