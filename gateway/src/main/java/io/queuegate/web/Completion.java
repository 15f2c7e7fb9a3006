package io.queuegate.web;

import io.queuegate.admission.Caller;
import io.queuegate.admission.Sessions;

import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Mono;

/**
 * How one forwarded request ends the session, by what the shop answered. A sale is what the shop
 * confirms: a {@code 2xx} answer to the request that holds the session's completion claim (or a
 * {@code 3xx}, on a route whose {@code complete-on-redirect} is {@code sale}) ends the session
 * and counts against the stock. A {@code 3xx} that is no sale (a refused order sent back to the
 * cart) and {@code Queue-Release: true} (on any status) end it as a leave: the place frees and
 * nothing is counted. A {@code 4xx} or {@code 5xx} gives the claim back, so the shopper can try
 * again. Whenever the shop's answer is unknown (the client went away, the gateway timed out or
 * could not reach the shop, the body was too large) the purchase may have gone through: the
 * claim stays, and ends with the session. The shop's {@code Queue-Stock} is noted on every
 * answer, stamped with when the request was forwarded.
 */
final class Completion {

    private final Sessions sessions;
    private final Caller caller;
    private final String routeId;
    private final String claim;
    private final boolean madePlace;
    private final boolean redirectIsSale;
    private final long forwardedAt;

    Completion(Sessions sessions, Caller caller, String routeId, String claim,
            boolean madePlace, boolean redirectIsSale, long forwardedAt) {
        this.sessions = sessions;
        this.caller = caller;
        this.routeId = routeId;
        this.claim = claim;
        this.madePlace = madePlace;
        this.redirectIsSale = redirectIsSale;
        this.forwardedAt = forwardedAt;
    }

    Mono<Void> end(ServerWebExchange exchange) {
        HttpStatusCode status = exchange.getResponse().getStatusCode();
        boolean shopAnswered = exchange.getAttribute(ServerWebExchangeUtils.CLIENT_RESPONSE_ATTR) != null
                && status != null;
        if (madePlace && shopAnswered && status.value() == 404 && !sessions.isConfigured(caller.productId())) {
            // The shop sells no such product: the place this request made goes, and with it
            // the product's state, unless someone else is in it (an invented id costs nothing).
            return sessions.noSuchProduct(caller);
        }
        boolean claimed = claim != null && shopAnswered;
        Long unitsLeft = shopAnswered ? StockHeader.unitsLeft(exchange) : null;
        if (claimed && (status.is2xxSuccessful() || status.is3xxRedirection() && redirectIsSale)) {
            return sessions.sold(caller, routeId, unitsLeft, forwardedAt);
        }
        if (ReleaseHeader.released(exchange) || claimed && status.is3xxRedirection()) {
            return sessions.endedWithoutSale(caller, unitsLeft, forwardedAt);
        }
        Mono<Void> stock = unitsLeft == null ? Mono.empty()
                : sessions.stockSaid(caller.productId(), unitsLeft, forwardedAt);
        return claimed ? sessions.completionRefused(caller, claim).then(stock) : stock;
    }
}
