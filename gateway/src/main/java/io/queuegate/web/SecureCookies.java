package io.queuegate.web;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;

import io.queuegate.config.CookieSecure;
import io.queuegate.identity.TrustedProxies;

import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * Whether the token cookie of an answer is {@code Secure} ({@code queuegate.token.cookie-secure}).
 * With {@code server.forward-headers-strategy: none} (which every trusted-proxy decision needs) a
 * request that reached a TLS-terminating proxy arrives here as plain {@code http}, so {@code auto}
 * also believes {@code X-Forwarded-Proto: https}, from a peer in {@code queuegate.trusted-proxies}
 * only, and only its last value (the one that peer wrote: a client's own value may come before it).
 */
public final class SecureCookies {

    static final String FORWARDED_PROTO = "X-Forwarded-Proto";

    private final CookieSecure mode;
    private final TrustedProxies proxies;

    public SecureCookies(CookieSecure mode, TrustedProxies proxies) {
        this.mode = mode;
        this.proxies = proxies;
    }

    public boolean secure(ServerHttpRequest request) {
        return switch (mode) {
            case ALWAYS -> true;
            case NEVER -> false;
            case AUTO -> request.getSslInfo() != null || "https".equalsIgnoreCase(request.getURI().getScheme())
                    || trustedProxySaysHttps(request);
        };
    }

    private boolean trustedProxySaysHttps(ServerHttpRequest request) {
        List<String> values = request.getHeaders().getOrEmpty(FORWARDED_PROTO);
        if (values.isEmpty()) {
            return false;
        }
        InetSocketAddress peer = request.getRemoteAddress();
        if (peer == null || !proxies.contains(peer.getAddress())) {
            return false;
        }
        String last = values.get(values.size() - 1);
        String proto = last.substring(last.lastIndexOf(',') + 1).trim();
        return "https".equals(proto.toLowerCase(Locale.ROOT));
    }
}
