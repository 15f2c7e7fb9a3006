package io.queuegate.admission;

import org.springframework.http.HttpCookie;
import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * The wait token a request carries: the {@code Queue-Token} header wins over the
 * {@code queue_token} cookie.
 *
 * @param value the compact JWT
 * @param fromCookie whether it came from the cookie
 */
public record PresentedToken(String value, boolean fromCookie) {

    public static final String HEADER = "Queue-Token";
    public static final String COOKIE = "queue_token";

    /** The request's token, or {@code null} when it has none. */
    public static PresentedToken of(ServerHttpRequest request) {
        String header = request.getHeaders().getFirst(HEADER);
        if (header != null) {
            return new PresentedToken(header.trim(), false);
        }
        HttpCookie cookie = request.getCookies().getFirst(COOKIE);
        return cookie != null && !cookie.getValue().isEmpty() ? new PresentedToken(cookie.getValue(), true) : null;
    }
}
