package io.queuegate.web;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

import io.queuegate.admission.Admission;
import io.queuegate.challenge.WaitTickets;
import io.queuegate.admission.Caller;
import io.queuegate.admission.PresentedToken;
import io.queuegate.config.CookieSecure;
import io.queuegate.config.QueueHeaders;
import io.queuegate.identity.TrustedProxies;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

/**
 * Maps admission decisions to HTTP: the 429 waiting answer (JSON, or the HTML page for
 * browsers), the contract's error bodies, and the token header and cookie.
 */
public class QueueResponses {

    public static final String RANK_HEADER = QueueHeaders.RANK;

    /** In a sale's pre-queue: the latest the shopper may come back after the opening and keep the place. */
    public static final String COME_BACK_BY_HEADER = QueueHeaders.COME_BACK_BY;

    private final JsonMapper json;
    private final WaitingPage page;
    private final Duration tokenTtl;
    private final SecureCookies secureCookies;
    private final ResponseWriter writer;
    private final TokenCookies cookies;

    /** Token cookies are {@code Secure} when the request itself came over TLS. */
    public QueueResponses(JsonMapper json, WaitingPage page, Duration tokenTtl) {
        this(json, page, tokenTtl, new SecureCookies(CookieSecure.AUTO, new TrustedProxies(List.of())));
    }

    public QueueResponses(JsonMapper json, WaitingPage page, Duration tokenTtl, SecureCookies secureCookies) {
        this.json = json;
        this.page = page;
        this.tokenTtl = tokenTtl;
        this.secureCookies = secureCookies;
        this.writer = new ResponseWriter(json, page);
        this.cookies = new TokenCookies(secureCookies);
    }

    public Mono<Void> waiting(ServerWebExchange exchange, Admission.Waiting waiting) {
        return waiting(exchange, waiting, (String) null);
    }

    /** @param displayName what the page calls the product; {@code null} for its id */
    public Mono<Void> waiting(ServerWebExchange exchange, Admission.Waiting waiting, String displayName) {
        return waiting(exchange, waiting, locale -> displayName);
    }

    /**
     * @param displayName what a page in a language calls the product (the route's display-names
     *                    and display-name); {@code null} for its id
     */
    public Mono<Void> waiting(ServerWebExchange exchange, Admission.Waiting waiting,
            Function<Locale, String> displayName) {
        Caller caller = waiting.caller();
        long retryAfter = waiting.retryAfterSeconds();
        ServerHttpResponse response = exchange.getResponse();
        response.setStatusCode(HttpStatus.TOO_MANY_REQUESTS);
        HttpHeaders headers = response.getHeaders();
        headers.set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfter));
        if (!waiting.preQueued()) {
            headers.set(RANK_HEADER, Long.toString(waiting.rank()));
        }
        else if (waiting.comeBackBy() != null) {
            headers.set(COME_BACK_BY_HEADER, waiting.comeBackBy().toString());
        }
        headers.setCacheControl("no-store");
        if (waiting.newToken()) {
            attachToken(exchange, waiting.token());
        }
        else {
            // The cookie already holds it: only the header, for clients that keep the token themselves.
            headers.set(PresentedToken.HEADER, waiting.token());
        }
        if (AcceptHeader.prefersHtml(exchange.getRequest())) {
            PageRequest shown = pageRequest(exchange);
            String name = displayName.apply(shown.locale());
            String html = waiting.preQueued()
                    ? page.renderPreQueue(caller.productId(), name, waiting.opensAt(), retryAfter,
                            waiting.seedCommitment(), waiting.rank(), waiting.comeBackBy(), shown)
                    : page.render(caller.productId(), name, waiting.rank(), waiting.estimatedWaitSeconds(),
                            retryAfter, waiting.seedCommitment(), unitsLeft(waiting), waiting.withinStock(),
                            ArrivalRank.of(exchange, waiting, secureCookies.secure(exchange.getRequest())), shown);
            return writer.html(response, html);
        }
        if (waiting.preQueued()) {
            String comeBackBy = waiting.comeBackBy() == null ? null : waiting.comeBackBy().toString();
            return writer.json(response, new WaitingBody("PRE_QUEUE", caller.productId(), caller.userId(), null,
                    waiting.token(), retryAfter, null, waiting.opensAt().toString(), waiting.rank(),
                    waiting.seedCommitment(), comeBackBy, WaitingBody.preQueueMessage(waiting.opensAt(), comeBackBy),
                    unitsLeft(waiting), null));
        }
        return writer.json(response, new WaitingBody("WAITING", caller.productId(), caller.userId(), waiting.rank(),
                waiting.token(), retryAfter, waiting.estimatedWaitSeconds(), waiting.seedCommitment(),
                unitsLeft(waiting), waiting.withinStock()));
    }

    private static Long unitsLeft(Admission.Waiting waiting) {
        return waiting.stock() == null ? null : waiting.stock().left();
    }

    public Mono<Void> error(ServerWebExchange exchange, QueueError error, String message, boolean clearCookie) {
        return error(exchange, error, message, clearCookie, error == QueueError.QUEUE_UNAVAILABLE ? 5 : 0);
    }

    public Mono<Void> error(ServerWebExchange exchange, QueueError error, String message, boolean clearCookie,
            long retryAfterSeconds) {
        ServerHttpResponse response = exchange.getResponse();
        response.setStatusCode(error.status());
        response.getHeaders().setCacheControl("no-store");
        if (retryAfterSeconds > 0) {
            response.getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
        }
        if (clearCookie) {
            response.addCookie(cookies.token(exchange.getRequest(), "", Duration.ZERO));
        }
        return writer.json(response, new ErrorBody(error.code(), message));
    }

    /** A refusal of the admission decision, as its contract error (or notice page, for browsers). */
    public Mono<Void> rejected(ServerWebExchange exchange, Admission.Rejected rejected) {
        return rejected(exchange, rejected, null, locale -> null);
    }

    /**
     * A refusal on a product's route: as {@link #rejected(ServerWebExchange, Admission.Rejected)},
     * and a browser told the product sold out is told which product, and that its place is kept
     * only when it holds one.
     *
     * @param displayName what a page in a language calls the product ({@code null}: its id)
     */
    public Mono<Void> rejected(ServerWebExchange exchange, Admission.Rejected rejected, String productId,
            java.util.function.Function<Locale, String> displayName) {
        QueueError error = QueueError.of(rejected.reason());
        if (error == QueueError.SOLD_OUT && productId != null && AcceptHeader.prefersHtml(exchange.getRequest())) {
            ServerHttpResponse response = exchange.getResponse();
            response.setStatusCode(error.status());
            response.getHeaders().setCacheControl("no-store");
            PageRequest request = pageRequest(exchange);
            String name = displayName.apply(request.locale());
            return writer.html(response, page.renderSoldOut(name != null ? name : productId, rejected.holdsPlace(),
                    request));
        }
        WaitingPage.Notice notice = WaitingPage.Notice.of(error);
        if (notice != null && AcceptHeader.prefersHtml(exchange.getRequest())) {
            ServerHttpResponse response = exchange.getResponse();
            response.setStatusCode(error.status());
            response.getHeaders().setCacheControl("no-store");
            if (rejected.clearCookie()) {
                response.addCookie(cookies.token(exchange.getRequest(), "", Duration.ZERO));
            }
            if (rejected.retryAfterSeconds() > 0) {
                response.getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(rejected.retryAfterSeconds()));
            }
            return writer.html(response, page.renderNotice(notice, rejected.retryAfterSeconds(), pageRequest(exchange)));
        }
        return error(exchange, error, rejected.detail() != null ? rejected.detail() : error.message(),
                rejected.clearCookie(), rejected.retryAfterSeconds());
    }

    /**
     * A join that must pay a proof of work first: the error with a fresh challenge in its JSON
     * body, or, for browsers, the page that solves it by itself and joins again.
     */
    public Mono<Void> challenged(ServerWebExchange exchange, Admission.Challenged challenged) {
        QueueError error = QueueError.of(challenged.reason());
        ServerHttpResponse response = exchange.getResponse();
        response.setStatusCode(error.status());
        response.getHeaders().setCacheControl("no-store");
        if (AcceptHeader.prefersHtml(exchange.getRequest())) {
            WaitTickets.Ticket ticket = challenged.ticket();
            if (ticket != null) {
                // A browser without JavaScript brings it back when the page refreshes itself.
                response.addCookie(cookies.waitTicket(exchange.getRequest(), ticket));
            }
            return writer.html(response, page.renderChallenge(json.writeValueAsString(challenged.challenge()),
                    ticket == null ? -1 : ticket.secondsLeft(), pageRequest(exchange)));
        }
        String message = challenged.detail() == null ? error.message()
                : challenged.detail() + "; solve the new challenge in this answer and join again";
        return writer.json(response, new ChallengeBody(error.code(), message, challenged.challenge()));
    }

    public Mono<Void> unavailable(ServerWebExchange exchange) {
        if (AcceptHeader.prefersHtml(exchange.getRequest())) {
            ServerHttpResponse response = exchange.getResponse();
            response.setStatusCode(QueueError.QUEUE_UNAVAILABLE.status());
            response.getHeaders().setCacheControl("no-store");
            response.getHeaders().set(HttpHeaders.RETRY_AFTER, "5");
            return writer.html(response, page.renderNotice(WaitingPage.Notice.UNAVAILABLE, 5, pageRequest(exchange)));
        }
        return error(exchange, QueueError.QUEUE_UNAVAILABLE, QueueError.QUEUE_UNAVAILABLE.message(), false);
    }

    /**
     * The page a shopper gets after leaving the line by its form: it names the product and links
     * back to {@code back}, the page they waited on (a checked path; no link without one).
     *
     * @param productName the product's name in the shopper's language, or its id
     */
    public Mono<Void> left(ServerWebExchange exchange, String productName, String back) {
        ServerHttpResponse response = exchange.getResponse();
        response.setStatusCode(HttpStatus.OK);
        response.getHeaders().setCacheControl("no-store");
        clearTokenCookie(exchange);
        return writer.html(response, page.renderLeft(productName, new PageRequest(locale(exchange), back)));
    }

    /**
     * The language a shopper page is written in: the shopper's choice from the pages' switch
     * (its cookie) when it names a language on offer, else what the browser asks for.
     */
    public Locale locale(ServerWebExchange exchange) {
        Locale browser = exchange.getLocaleContext().getLocale();
        return page.languages().of(exchange.getRequest(), browser != null ? browser : Locale.ENGLISH);
    }

    /** The page's language, and its own address for its language switch to come back to. */
    private PageRequest pageRequest(ServerWebExchange exchange) {
        return new PageRequest(locale(exchange), BackPath.of(exchange.getRequest()));
    }

    /** {@code 303 See Other} to {@code back}, keeping {@code locale} as the shopper's language choice. */
    public Mono<Void> languageChosen(ServerWebExchange exchange, Locale locale, String back) {
        if (locale != null) {
            exchange.getResponse().addCookie(page.languages().cookie(locale, secureCookies.secure(exchange.getRequest())));
        }
        String checked = BackPath.checked(back);
        return seeOther(exchange, URI.create(checked != null ? checked : "/"));
    }

    /** The languages the pages offer. */
    public PageLanguages languages() {
        return page.languages();
    }

    /** Whether the shopper asks for a page rather than JSON. */
    public boolean wantsPage(ServerWebExchange exchange) {
        return AcceptHeader.prefersHtml(exchange.getRequest());
    }

    /** {@code 303 See Other} to {@code location}: the browser asks for it with a GET. */
    public Mono<Void> seeOther(ServerWebExchange exchange, URI location) {
        ServerHttpResponse response = exchange.getResponse();
        response.setStatusCode(HttpStatus.SEE_OTHER);
        response.getHeaders().setLocation(location);
        response.getHeaders().setCacheControl("no-store");
        return response.setComplete();
    }

    /** {@code 308 Permanent Redirect} to {@code location}: the client sends the same request there. */
    public Mono<Void> permanentRedirect(ServerWebExchange exchange, URI location) {
        ServerHttpResponse response = exchange.getResponse();
        response.setStatusCode(HttpStatus.PERMANENT_REDIRECT);
        response.getHeaders().setLocation(location);
        response.getHeaders().setCacheControl("no-store");
        return response.setComplete();
    }

    public Mono<Void> status(ServerWebExchange exchange, HttpStatus status, StatusBody body) {
        exchange.getResponse().setStatusCode(status);
        exchange.getResponse().getHeaders().setCacheControl("no-store");
        return writer.json(exchange.getResponse(), body);
    }

    /** Puts a newly issued token on the answer, as header and HttpOnly cookie. */
    public void attachToken(ServerWebExchange exchange, String token) {
        if (token == null) {
            return;
        }
        exchange.getResponse().getHeaders().set(PresentedToken.HEADER, token);
        exchange.getResponse().addCookie(cookies.token(exchange.getRequest(), token, tokenTtl));
    }

    public void clearTokenCookie(ServerWebExchange exchange) {
        exchange.getResponse().addCookie(cookies.token(exchange.getRequest(), "", Duration.ZERO));
    }
}
