package io.queuegate.web;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;

import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * The address a shopper page answers, as its language switch and its leave form carry it back to
 * the gateway: a path on the gateway's own origin, never another site's address. Whatever comes
 * back is checked again ({@link #checked}): a link anyone can write must not send a shopper away
 * (an open redirect) or split an answer's headers.
 */
final class BackPath {

    /** Longer addresses are not carried: a switch then goes back to the site's root. */
    static final int MAX_LENGTH = 2048;

    /** What a path and query may hold as written (RFC 3986): unreserved, sub-delims, : @ / ? and escapes. */
    private static final String ALLOWED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?%";

    private BackPath() {
    }

    /**
     * The path and query the request asked for, as sent, without an {@code invite} parameter (an
     * invitation leaves the address bar once used, and must not come back through a link), or
     * {@code null} when it is longer than {@link #MAX_LENGTH}.
     */
    static String of(ServerHttpRequest request) {
        String path = request.getURI().getRawPath();
        String query = request.getURI().getRawQuery();
        StringBuilder back = new StringBuilder(path == null || path.isEmpty() ? "/" : path);
        if (query != null && !query.isEmpty()) {
            List<String> kept = new ArrayList<>();
            for (String pair : query.split("&")) {
                String name = pair.split("=", 2)[0];
                if (!pair.isEmpty() && !name.equalsIgnoreCase("invite")) {
                    kept.add(pair);
                }
            }
            if (!kept.isEmpty()) {
                back.append('?').append(String.join("&", kept));
            }
        }
        return checked(back.toString());
    }

    /**
     * {@code back} when it is a path on this origin, else {@code null}: it starts with one
     * {@code /} (not {@code //} or {@code /\}, which browsers read as another host), and holds
     * only what a URI's path and query may hold as written (no space, control character, backslash
     * or non-ASCII character), so nothing in it can end a header or be read as a scheme or host.
     */
    static String checked(String back) {
        if (back == null || back.isEmpty() || back.length() > MAX_LENGTH || back.charAt(0) != '/') {
            return null;
        }
        if (back.length() > 1 && (back.charAt(1) == '/' || back.charAt(1) == '\\')) {
            return null;
        }
        for (int i = 0; i < back.length(); i++) {
            if (ALLOWED.indexOf(back.charAt(i)) < 0) {
                return null;
            }
        }
        try {
            URI uri = new URI(back);
            return uri.getScheme() == null && uri.getRawAuthority() == null ? back : null;
        }
        catch (URISyntaxException notAPath) {
            return null;
        }
    }
}
