package io.queuegate.app;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Refuses to start the {@code demo} profile anywhere but on one machine. Its token secret and
 * operator login are public and it believes {@code X-User-Id} from loopback: harmless while its
 * Redis is the embedded one and both ports listen on loopback alone, a free pass to anyone
 * otherwise (forged proof-of-work solutions, a known draw seed, any identity, the operator's
 * actions). It runs before any bean, so nothing is bound or connected when it refuses.
 */
public final class DemoProfileGuard implements EnvironmentPostProcessor, Ordered {

    static final String PROFILE = "demo";

    static final String EMBEDDED_REDIS = "queuegate.redis.embedded";
    static final String SHOPPER_ADDRESS = "server.address";
    static final String MANAGEMENT_ADDRESS = "management.server.address";

    @Override
    public int getOrder() {
        // After the config data (application-demo.yml, the command line) is in the environment.
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (!environment.matchesProfiles(PROFILE)) {
            return;
        }
        List<String> reasons = new ArrayList<>();
        // Read as the embedded Redis's own condition reads it (@ConditionalOnProperty havingValue "true").
        String embedded = environment.getProperty(EMBEDDED_REDIS);
        if (!"true".equalsIgnoreCase(embedded)) {
            reasons.add(EMBEDDED_REDIS + " is " + (embedded == null ? "not set" : embedded) + " (it must be true)");
        }
        for (String property : List.of(SHOPPER_ADDRESS, MANAGEMENT_ADDRESS)) {
            String reason = notLoopback(property, environment.getProperty(property));
            if (reason != null) {
                reasons.add(reason);
            }
        }
        if (!reasons.isEmpty()) {
            throw new IllegalStateException("The " + PROFILE + " profile runs only on its embedded Redis and on "
                    + "loopback: " + String.join("; ", reasons) + ". Its token secret and operator login are public "
                    + "and it believes X-User-Id from loopback. Run the gateway without the " + PROFILE
                    + " profile, with a secret, routes and a Redis of your own (docs/configuration.md).");
        }
    }

    /** Why the address a port binds is not loopback alone, or {@code null} when it is. */
    private static String notLoopback(String property, String address) {
        if (address == null || address.isBlank()) {
            return property + " is not set (every interface; it must be a loopback address such as 127.0.0.1)";
        }
        try {
            if (InetAddress.getByName(address.trim()).isLoopbackAddress()) {
                return null;
            }
        }
        catch (UnknownHostException ex) {
            return property + " is " + address + ", which does not resolve (it must be a loopback address such as "
                    + "127.0.0.1)";
        }
        return property + " is " + address + " (it must be a loopback address such as 127.0.0.1)";
    }
}
