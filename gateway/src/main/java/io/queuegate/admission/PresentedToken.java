package io.queuegate.admission;

import java.util.ArrayList;
import java.util.List;

import io.queuegate.config.QueueHeaders;

import org.springframework.http.HttpCookie;
import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * The wait token a request carries: the {@code Queue-Token} header wins over the
 * {@code queue_token} cookie. A browser sends every cookie of that name whose domain and path
 * match, so a request may carry several (one planted with a longer path, by a sibling subdomain
 * or a script of the site, comes before the gateway's own, whose path is {@code /}): which of them
 * is the request's token is the caller resolver's to choose ({@link CallerResolver#chosen}), by
 * which verifies.
 *
 * @param value the compact JWT; of several cookies, the first, until one is chosen
 * @param fromCookie whether it came from the cookie
 * @param ambiguous whether the request carried more than one {@code Queue-Token} header, which
 *                  is refused rather than guessed at
 * @param cookies the values of every {@code queue_token} cookie, as sent, when there are several
 *                and no header; empty otherwise
 */
public record PresentedToken(String value, boolean fromCookie, boolean ambiguous, List<String> cookies) {

    public static final String HEADER = QueueHeaders.TOKEN;
    public static final String COOKIE = QueueHeaders.TOKEN_COOKIE;

    public PresentedToken {
        cookies = List.copyOf(cookies);
    }

    /** A token from the header, or from the request's only cookie. */
    public PresentedToken(String value, boolean fromCookie, boolean ambiguous) {
        this(value, fromCookie, ambiguous, List.of());
    }

    /** The request's token, or {@code null} when it has none. */
    public static PresentedToken of(ServerHttpRequest request) {
        List<String> headers = request.getHeaders().getOrEmpty(HEADER);
        if (!headers.isEmpty()) {
            return new PresentedToken(headers.get(0).trim(), false, headers.size() > 1);
        }
        List<HttpCookie> sent = request.getCookies().get(COOKIE);
        if (sent == null) {
            return null;
        }
        List<String> values = new ArrayList<>(sent.size());
        for (HttpCookie cookie : sent) {
            if (!cookie.getValue().isEmpty()) {
                values.add(cookie.getValue());
            }
        }
        if (values.isEmpty()) {
            return null;
        }
        return values.size() == 1 ? cookie(values.get(0)) : new PresentedToken(values.get(0), true, false, values);
    }

    /** The one cookie read of those the request carried. */
    static PresentedToken cookie(String value) {
        return new PresentedToken(value, true, false);
    }

    /** Whether the request carried several cookies, of which one is still to be chosen. */
    public boolean severalCookies() {
        return cookies.size() > 1;
    }
}
