package io.queuegate.admission;

import java.util.List;

import io.queuegate.config.QueueHeaders;

import org.springframework.http.HttpCookie;
import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * The wait token a request carries: the {@code Queue-Token} header wins over the
 * {@code queue_token} cookie.
 *
 * @param value the compact JWT
 * @param fromCookie whether it came from the cookie
 * @param ambiguous whether the request carried more than one {@code Queue-Token} header, which
 *                  is refused rather than guessed at
 */
public record PresentedToken(String value, boolean fromCookie, boolean ambiguous) {

    public static final String HEADER = QueueHeaders.TOKEN;
    public static final String COOKIE = QueueHeaders.TOKEN_COOKIE;

    /** The request's token, or {@code null} when it has none. */
    public static PresentedToken of(ServerHttpRequest request) {
        List<String> headers = request.getHeaders().getOrEmpty(HEADER);
        if (!headers.isEmpty()) {
            return new PresentedToken(headers.get(0).trim(), false, headers.size() > 1);
        }
        HttpCookie cookie = request.getCookies().getFirst(COOKIE);
        return cookie != null && !cookie.getValue().isEmpty() ? new PresentedToken(cookie.getValue(), true, false)
                : null;
    }
}
