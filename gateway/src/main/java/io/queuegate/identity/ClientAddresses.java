package io.queuegate.identity;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * The address of the client behind a request, for per-address limits. {@code X-Forwarded-For}
 * is believed only as far as trusted proxies wrote it: walking it from the right, the first
 * address that is not a trusted proxy is the client. A client cannot choose its own address by
 * sending the header, because the first untrusted hop stops the walk, and a request whose peer
 * is not a trusted proxy is its peer, whatever it claims. A hop may carry a port or brackets
 * ({@code 203.0.113.9:443}, {@code [2001:db8::1]:443}); a hop that is no literal address (no name is
 * ever looked up) stops the walk, and the last address believed before it is the client. The
 * client's address is written as a peer's is. The peer is the TCP connection's
 * remote address: the gateway must not let the server rewrite it from forwarded headers
 * ({@code server.forward-headers-strategy: none}). An untrusted peer that sends
 * {@code X-Forwarded-For} (most likely a proxy missing from {@code queuegate.trusted-proxies}) is
 * reported at WARN, at most once a minute.
 */
public final class ClientAddresses {

    private static final String FORWARDED_FOR = "X-Forwarded-For";

    private static final Log log = LogFactory.getLog(ClientAddresses.class);

    private final TrustedProxies trustedProxies;
    private final OnceAMinute ignoredForwardedFor;

    public ClientAddresses(TrustedProxies trustedProxies) {
        this(trustedProxies, Clock.systemUTC());
    }

    /** @param clock for the once-a-minute warning about an untrusted peer's {@code X-Forwarded-For} */
    public ClientAddresses(TrustedProxies trustedProxies, Clock clock) {
        this.trustedProxies = trustedProxies;
        this.ignoredForwardedFor = new OnceAMinute(clock);
    }

    public String of(ServerHttpRequest request) {
        InetSocketAddress remote = request.getRemoteAddress();
        InetAddress peer = remote == null ? null : remote.getAddress();
        String peerText = peer == null ? "unknown" : peer.getHostAddress();
        if (peer == null || !trustedProxies.contains(peer)) {
            if (request.getHeaders().containsHeader(FORWARDED_FOR) && ignoredForwardedFor.open()) {
                log.warn("Ignored " + FORWARDED_FOR + " from " + peerText + ": the peer is not in "
                        + "queuegate.trusted-proxies, so it is the client itself for per-address join limits and "
                        + "live stream caps. Behind a proxy, ingress or load balancer that is every shopper's "
                        + "address, and those limits become one limit for everybody: if a proxy of yours sets this "
                        + "header, add its address there. This warning repeats at most once a minute.");
            }
            return peerText;
        }
        List<String> forwarded = request.getHeaders().getOrEmpty(FORWARDED_FOR).stream()
                .flatMap(value -> Arrays.stream(value.split(",")))
                .map(String::trim)
                .filter(hop -> !hop.isEmpty())
                .toList();
        // The last address believed so far: the peer, then each trusted hop.
        String client = peerText;
        for (int i = forwarded.size() - 1; i >= 0; i--) {
            byte[] hop = IpLiteral.hop(forwarded.get(i));
            if (hop == null) {
                // Not an address: nothing left of it can be told apart, and a string of the
                // client's choosing must not become a per-address limit of its own.
                return client;
            }
            client = text(hop);
            if (!trustedProxies.contains(hop)) {
                return client;
            }
        }
        return client;
    }

    /**
     * The network a client address counts in for per-address limits: an IPv4 address is its
     * own, an IPv6 address counts by its /64 (one subscriber's prefix: a client changes the low
     * 64 bits at will). Anything that is not a literal address counts as itself.
     */
    public static String network(String address) {
        byte[] bytes = IpLiteral.parse(address);
        if (bytes == null || bytes.length == 4) {
            return address;
        }
        StringBuilder prefix = new StringBuilder(24);
        for (int i = 0; i < 8; i += 2) {
            prefix.append(Integer.toHexString(((bytes[i] & 0xFF) << 8) | (bytes[i + 1] & 0xFF))).append(':');
        }
        return prefix.append(":/64").toString();
    }

    /**
     * The network a wait token is bound to ({@code bind-token: network}): an IPv4 address's /24
     * ({@code 203.0.113.0/24}), an IPv6 address's /64, as {@link #network} writes it. Wider than
     * one address, so a carrier's NAT moving a shopper between neighbouring addresses, or a
     * phone's changing IPv6 suffix, keeps the token working. Anything that is not a literal
     * address counts as itself.
     */
    public static String bindingNetwork(String address) {
        byte[] bytes = IpLiteral.parse(address);
        if (bytes == null || bytes.length != 4) {
            return network(address);
        }
        return (bytes[0] & 0xFF) + "." + (bytes[1] & 0xFF) + "." + (bytes[2] & 0xFF) + ".0/24";
    }

    /** An address written as a peer's is ({@link InetAddress#getHostAddress}); no lookup. */
    private static String text(byte[] address) {
        try {
            return InetAddress.getByAddress(address).getHostAddress();
        }
        catch (UnknownHostException impossible) {
            throw new IllegalStateException(impossible); // only for a length other than 4 or 16
        }
    }
}
