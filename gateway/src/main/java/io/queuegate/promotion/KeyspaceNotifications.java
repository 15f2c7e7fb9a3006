package io.queuegate.promotion;

import java.util.Properties;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;

import reactor.core.publisher.Mono;

/**
 * Makes sure Redis sends the expiry events that {@code promotion: keyspace} needs: the server's
 * {@code notify-keyspace-events} must contain {@code E} (key-event channel) and {@code x}
 * (expired). When it does not, the flags are added; when the server forbids {@code CONFIG}
 * (managed Redis), one warning says what to configure and promotion goes on through the safety
 * net.
 */
public class KeyspaceNotifications {

    private static final Log log = LogFactory.getLog(KeyspaceNotifications.class);
    private static final String PARAMETER = "notify-keyspace-events";

    private final ReactiveRedisConnectionFactory connections;

    public KeyspaceNotifications(ReactiveRedisConnectionFactory connections) {
        this.connections = connections;
    }

    /** @return whether expiry events are on after the call */
    public Mono<Boolean> ensureExpiryEvents() {
        return Mono.usingWhen(Mono.fromSupplier(connections::getReactiveConnection),
                connection -> connection.serverCommands().getConfig(PARAMETER)
                        .map(KeyspaceNotifications::currentFlags)
                        .flatMap(flags -> hasExpiryEvents(flags) ? Mono.just(true)
                                : connection.serverCommands().setConfig(PARAMETER, withExpiryEvents(flags))
                                        .doOnNext(ok -> log.info("Set " + PARAMETER + " to '"
                                                + withExpiryEvents(flags) + "' for promotion: keyspace"))
                                        .thenReturn(true)),
                connection -> connection.closeLater())
                .onErrorResume(error -> {
                    log.warn("Redis does not allow QueueGate to check or set " + PARAMETER + " (" + error.getMessage()
                            + "). promotion: keyspace needs it to contain 'Ex': set it on the server (e.g. "
                            + "'notify-keyspace-events Ex' in redis.conf or your provider's parameter group). "
                            + "Until then expired sessions are freed by the safety net only.");
                    return Mono.just(false);
                });
    }

    static boolean hasExpiryEvents(String flags) {
        return flags.contains("E") && (flags.contains("x") || flags.contains("A"));
    }

    static String withExpiryEvents(String flags) {
        String result = flags;
        if (!result.contains("E")) {
            result += "E";
        }
        if (!result.contains("x") && !result.contains("A")) {
            result += "x";
        }
        return result;
    }

    private static String currentFlags(Properties config) {
        // Servers answer with the parameter as key; some proxies prefix it differently.
        for (String name : config.stringPropertyNames()) {
            if (name.endsWith(PARAMETER)) {
                return config.getProperty(name);
            }
        }
        return "";
    }
}
