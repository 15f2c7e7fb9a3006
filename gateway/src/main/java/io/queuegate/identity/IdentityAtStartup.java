package io.queuegate.identity;

import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Says once, at startup, who QueueGate takes a shopper to be. A gateway whose identity source can
 * name nobody (the principal, with no Spring Security to authenticate anyone) queues every shopper
 * as anonymous without a word otherwise, and is found out only when a sale goes wrong.
 */
public final class IdentityAtStartup implements SmartInitializingSingleton {

    /** Spring Security's WebFlux filter chain: what sets the exchange's principal in a reactive gateway. */
    public static final String SPRING_SECURITY_WEBFLUX = "org.springframework.security.web.server.WebFilterChainProxy";

    private static final Log log = LogFactory.getLog(IdentityAtStartup.class);

    private final IdentityResolver resolver;
    private final String header;
    private final List<String> trustedProxies;
    private final boolean springSecurity;

    /**
     * @param header the identity header, for {@link TrustedHeaderIdentity}
     * @param trustedProxies the peers it is believed from
     * @param springSecurity whether Spring Security's WebFlux support is on the classpath
     */
    public IdentityAtStartup(IdentityResolver resolver, String header, List<String> trustedProxies,
            boolean springSecurity) {
        this.resolver = resolver;
        this.header = header;
        this.trustedProxies = List.copyOf(trustedProxies);
        this.springSecurity = springSecurity;
    }

    @Override
    public void afterSingletonsInstantiated() {
        Line line = line();
        if (line.warning()) {
            log.warn(line.text());
        }
        else {
            log.info(line.text());
        }
    }

    /** What is said, and whether it is a warning. */
    public Line line() {
        if (resolver instanceof PrincipalIdentity) {
            if (!springSecurity) {
                return new Line(true, "QueueGate identity: queuegate.identity.source is principal, but Spring Security "
                        + "is not on the classpath: nothing authenticates shoppers, so every shopper is anonymous "
                        + "(unless a filter of the application's own sets the exchange's principal). Add Spring "
                        + "Security, or set queuegate.identity.source to header and list your proxies in "
                        + "queuegate.trusted-proxies");
            }
            return new Line(false, "QueueGate identity: each shopper is the principal Spring Security authenticated "
                    + "(queuegate.identity.source: principal); a request without one is an anonymous shopper");
        }
        if (resolver instanceof TrustedHeaderIdentity) {
            return new Line(false, "QueueGate identity: each shopper is who the header " + header + " names, believed "
                    + "only from queuegate.trusted-proxies " + trustedProxies + " (queuegate.identity.source: header); "
                    + "a request without it, or from another peer, is an anonymous shopper");
        }
        return new Line(false, "QueueGate identity: each shopper is who the application's IdentityResolver ("
                + resolver.getClass().getName() + ") says");
    }

    /** @param warning whether the line is a warning: no shopper can be told apart */
    public record Line(boolean warning, String text) {
    }
}
