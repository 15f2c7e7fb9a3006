package io.queuegate.identity;

import java.net.URI;
import java.util.Locale;

import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * Whether a browser says a request comes from a page of another origin: a change it makes for
 * that page (a cross-site form, a script's request) must not act for the shopper or the operator
 * whose cookies it carries. Clients that are not browsers send neither header and act for
 * themselves.
 */
public final class RequestOrigin {

    private RequestOrigin() {
    }

    /**
     * True when {@code Sec-Fetch-Site} is anything but {@code same-origin} or {@code none}, or,
     * without it, when an {@code Origin} is sent that is not the request's own. Its own origin is
     * the {@code Host} it sent (which the caller trusts as one of its own), never a forwarded one:
     * a page may add {@code X-Forwarded-Host} to its own requests.
     */
    public static boolean crossSite(ServerHttpRequest request) {
        String fetchSite = request.getHeaders().getFirst("Sec-Fetch-Site");
        if (fetchSite != null) {
            String site = fetchSite.trim().toLowerCase(Locale.ROOT);
            return !site.equals("same-origin") && !site.equals("none");
        }
        String origin = request.getHeaders().getFirst(HttpHeaders.ORIGIN);
        return origin != null && !sameOrigin(origin, request.getURI().getScheme(),
                request.getHeaders().getFirst(HttpHeaders.HOST));
    }

    private static boolean sameOrigin(String origin, String scheme, String host) {
        if (host == null) {
            return false;
        }
        try {
            URI from = URI.create(origin.trim());
            URI target = URI.create(scheme + "://" + host.trim());
            return from.getScheme() != null && from.getHost() != null && target.getHost() != null
                    && from.getScheme().equalsIgnoreCase(target.getScheme())
                    && from.getHost().equalsIgnoreCase(target.getHost())
                    && port(from) == port(target);
        }
        catch (IllegalArgumentException notAUri) {
            // "null" (a sandboxed or file page) and garbage are no origin of ours.
            return false;
        }
    }

    private static int port(URI uri) {
        if (uri.getPort() >= 0) {
            return uri.getPort();
        }
        return "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    }
}
