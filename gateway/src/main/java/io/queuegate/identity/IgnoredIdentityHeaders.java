package io.queuegate.identity;

import java.net.InetSocketAddress;
import java.time.Clock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.web.server.ServerWebExchange;

/**
 * Reports an identity header that arrived and was not believed, at most once a minute: a
 * misconfigured proxy list (every shopper suddenly anonymous) shows up in the log at once, and a
 * client flooding forged headers cannot flood the log.
 */
public final class IgnoredIdentityHeaders {

    private static final Log log = LogFactory.getLog(IgnoredIdentityHeaders.class);

    private final String header;
    private final OnceAMinute gate;

    public IgnoredIdentityHeaders(String header, Clock clock) {
        this.header = header;
        this.gate = new OnceAMinute(clock);
    }

    /**
     * Warns (rate-limited) when the request carries the identity header.
     *
     * @param why why it is not believed, and what to do if it should be
     */
    public void check(ServerWebExchange exchange, String why) {
        if (!exchange.getRequest().getHeaders().containsHeader(header) || !gate.open()) {
            return;
        }
        InetSocketAddress peer = exchange.getRequest().getRemoteAddress();
        String from = peer == null || peer.getAddress() == null ? "an unknown peer" : peer.getAddress().getHostAddress();
        log.warn("Ignored the identity header " + header + " from " + from + " (" + why + "); it is not forwarded "
                + "either. This warning repeats at most once a minute.");
    }
}
