package io.queuegate.identity;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.cloud.CloudPlatform;
import org.springframework.core.env.Environment;

/**
 * Every trusted-proxy decision (who is believed as the identity header's writer, which address a
 * join counts against) rests on the request's peer being the TCP connection's remote address.
 * With {@code server.forward-headers-strategy} {@code native} or {@code framework} (Spring Boot
 * picks {@code native} by itself on Kubernetes and other cloud platforms) the server replaces it
 * with whatever a client wrote in {@code X-Forwarded-For}. This check says so at startup: with
 * header identity it refuses to start (a client could name itself a trusted proxy and then anyone
 * it likes), otherwise it warns (per-address limits could be dodged).
 */
public class ForwardedHeadersCheck implements SmartInitializingSingleton {

    private static final Log log = LogFactory.getLog(ForwardedHeadersCheck.class);

    private final Environment environment;
    private final boolean headerIdentity;

    public ForwardedHeadersCheck(Environment environment, boolean headerIdentity) {
        this.environment = environment;
        this.headerIdentity = headerIdentity;
    }

    @Override
    public void afterSingletonsInstantiated() {
        String strategy = resolvedStrategy();
        if ("none".equals(strategy)) {
            return;
        }
        String message = "server.forward-headers-strategy resolves to '" + strategy + "': the server takes the "
                + "client's address from X-Forwarded-For, which any client can write, so QueueGate's trusted-proxy "
                + "checks would believe it. Set server.forward-headers-strategy=none; QueueGate reads "
                + "X-Forwarded-For itself, as far as queuegate.trusted-proxies wrote it";
        if (headerIdentity) {
            throw new IllegalStateException(message + " (with queuegate.identity.source=header a client could name "
                    + "itself a trusted proxy and then claim any identity)");
        }
        log.warn(message + ".");
    }

    /** {@code none}, {@code native} or {@code framework}, as Spring Boot will apply it. */
    String resolvedStrategy() {
        String configured = environment.getProperty("server.forward-headers-strategy");
        if (configured != null && !configured.isBlank()) {
            return configured.trim().toLowerCase(java.util.Locale.ROOT);
        }
        CloudPlatform platform = CloudPlatform.getActive(environment);
        return platform != null && platform.isUsingForwardHeaders() ? "native" : "none";
    }
}
