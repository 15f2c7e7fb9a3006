package io.queuegate.identity;

import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.web.server.ServerWebExchange;

/**
 * Reports an identity header that arrived and was not believed, at most once a minute: a
 * misconfigured proxy list (every shopper suddenly anonymous) shows up in the log at once, and a
 * client flooding forged headers cannot flood the log.
 */
public final class IgnoredIdentityHeaders {

    static final long EVERY_MILLIS = 60_000;

    private static final Log log = LogFactory.getLog(IgnoredIdentityHeaders.class);

    private final String header;
    private final Clock clock;
    /** When the last warning went out (epoch ms); 0 before the first. */
    private final AtomicLong lastWarned = new AtomicLong();

    public IgnoredIdentityHeaders(String header, Clock clock) {
        this.header = header;
        this.clock = clock;
    }

    /**
     * Warns (rate-limited) when the request carries the identity header.
     *
     * @param why why it is not believed, and what to do if it should be
     */
    public void check(ServerWebExchange exchange, String why) {
        if (!exchange.getRequest().getHeaders().containsHeader(header)) {
            return;
        }
        long now = clock.millis();
        long last = lastWarned.get();
        if ((last != 0 && now - last < EVERY_MILLIS) || !lastWarned.compareAndSet(last, now)) {
            return;
        }
        InetSocketAddress peer = exchange.getRequest().getRemoteAddress();
        String from = peer == null || peer.getAddress() == null ? "an unknown peer" : peer.getAddress().getHostAddress();
        log.warn("Ignored the identity header " + header + " from " + from + " (" + why + "); it is not forwarded "
                + "either. This warning repeats at most once a minute.");
    }
}
