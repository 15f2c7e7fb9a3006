package io.queuegate.identity;

import java.net.InetSocketAddress;
import java.util.List;

import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Mono;

/**
 * The caller is whoever the identity header names, when a trusted proxy wrote it: the request's
 * peer (the TCP connection's remote address, never a forwarded header) must be one of
 * {@code queuegate.trusted-proxies}. From any other peer the header is ignored and the caller is
 * anonymous, so a client cannot claim to be someone else by sending the header itself.
 */
public final class TrustedHeaderIdentity implements IdentityResolver {

    private final String header;
    private final TrustedProxies proxies;
    private final IgnoredIdentityHeaders ignored;

    public TrustedHeaderIdentity(String header, TrustedProxies proxies, IgnoredIdentityHeaders ignored) {
        this.header = header;
        this.proxies = proxies;
        this.ignored = ignored;
    }

    /** Whether this request's identity header, if any, was written by a trusted proxy. */
    public boolean believes(ServerWebExchange exchange) {
        InetSocketAddress peer = exchange.getRequest().getRemoteAddress();
        return peer != null && proxies.contains(peer.getAddress());
    }

    @Override
    public Mono<String> resolve(ServerWebExchange exchange) {
        List<String> values = exchange.getRequest().getHeaders().getOrEmpty(header);
        if (values.isEmpty()) {
            return Mono.empty();
        }
        InetSocketAddress peer = exchange.getRequest().getRemoteAddress();
        if (peer == null || !proxies.contains(peer.getAddress())) {
            ignored.check(exchange, "the peer is not in queuegate.trusted-proxies, so the caller is anonymous; if a "
                    + "proxy of yours sets this header, add its address there");
            return Mono.empty();
        }
        // Two values mean a proxy appended to what the client sent: neither can be told apart.
        // AmbiguousCredentialsFilter refuses those before this runs; anonymous is the fallback.
        if (values.size() > 1 || values.get(0).isBlank() || values.get(0).indexOf(',') >= 0) {
            ignored.check(exchange, "it is empty or names more than one user, so the caller is anonymous");
            return Mono.empty();
        }
        return Mono.just(values.get(0).trim());
    }
}
