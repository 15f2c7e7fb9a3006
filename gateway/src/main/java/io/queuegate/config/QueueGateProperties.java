package io.queuegate.config;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Global QueueGate settings under {@code queuegate.*}; per-route settings live in route
 * metadata ({@link QueueSettings}).
 *
 * @param enabled whether the admission filter is installed; default {@code true}
 * @param userIdHeader header holding the caller's id, set by the shop's auth; default {@code X-User-Id}
 * @param token wait token signing
 * @param scheduler the {@code promotion: scheduler} loop
 * @param safetyNet the promotion pass that backs up the event strategies
 * @param redis how QueueGate uses Redis
 * @param stream the slot-event stream of {@code promotion: stream}
 * @param joins the limit on joins per caller
 * @param page the waiting page shown to browsers
 * @param activeCacheTtl how long an instance may trust that a token holder is active without
 *                       asking Redis again; at most 1 second, 0 to always ask; default 1 second
 * @param maxBodySize larger request bodies (by Content-Length) on protected routes are refused
 *                    with 413 before Redis or the backend sees them; default 1MB
 * @param products per-product overrides of any route {@code queue} field, by product id
 */
@ConfigurationProperties("queuegate")
public record QueueGateProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("X-User-Id") String userIdHeader,
        @DefaultValue Token token,
        @DefaultValue Scheduler scheduler,
        @DefaultValue SafetyNet safetyNet,
        @DefaultValue Redis redis,
        @DefaultValue Stream stream,
        @DefaultValue Joins joins,
        @DefaultValue Page page,
        @DefaultValue("1MB") DataSize maxBodySize,
        @DefaultValue("1s") Duration activeCacheTtl,
        Map<String, QueueSettings> products) {

    public QueueGateProperties {
        products = products == null ? Map.of() : Map.copyOf(products);
        products.values().forEach(override -> QueuePolicy.from(override));
        if (activeCacheTtl.isNegative() || activeCacheTtl.compareTo(Duration.ofSeconds(1)) > 0) {
            throw new IllegalArgumentException("queuegate.active-cache-ttl must be between 0 and 1s, was "
                    + activeCacheTtl);
        }
    }

    /**
     * @param secret HS256 signing secret, at least 32 bytes; required (only the demo profile sets one)
     * @param previousSecrets older secrets whose tokens are still accepted during a rotation; default none
     * @param ttl lifetime of a wait token; default 2 hours
     */
    public record Token(String secret, List<String> previousSecrets, @DefaultValue("2h") Duration ttl) {

        /** HS256 needs a key at least as long as its 256-bit hash. */
        public static final int MIN_SECRET_BYTES = 32;

        public Token {
            previousSecrets = previousSecrets == null ? List.of() : List.copyOf(previousSecrets);
            if (secret == null || secret.isBlank()) {
                throw new IllegalArgumentException("queuegate.token.secret is required: set it (e.g. the environment "
                        + "variable QUEUEGATE_TOKEN_SECRET) to a random value of at least " + MIN_SECRET_BYTES
                        + " bytes, such as the output of 'openssl rand -base64 48'");
            }
            requireLength("queuegate.token.secret", secret);
            previousSecrets.forEach(old -> requireLength("queuegate.token.previous-secrets", old));
            if (ttl.isNegative() || ttl.isZero()) {
                throw new IllegalArgumentException("queuegate.token.ttl must be positive, was " + ttl);
            }
        }

        private static void requireLength(String property, String value) {
            int length = value.getBytes(StandardCharsets.UTF_8).length;
            if (length < MIN_SECRET_BYTES) {
                throw new IllegalArgumentException(property + " must be at least " + MIN_SECRET_BYTES
                        + " bytes for HS256, was " + length);
            }
        }
    }

    /** @param interval period of {@code promotion: scheduler}; default 5 seconds */
    public record Scheduler(@DefaultValue("5s") Duration interval) {

        public Scheduler {
            requirePositive("queuegate.scheduler.interval", interval);
        }
    }

    /** @param interval period of the safety net of the event strategies; default 30 seconds */
    public record SafetyNet(@DefaultValue("30s") Duration interval) {

        public SafetyNet {
            requirePositive("queuegate.safety-net.interval", interval);
        }
    }

    /**
     * @param timeout longest wait for one Redis call before the route's {@code on-redis-failure}
     *                applies; default 2 seconds
     */
    public record Redis(@DefaultValue("2s") Duration timeout) {

        public Redis {
            requirePositive("queuegate.redis.timeout", timeout);
        }
    }

    /**
     * @param claimIdle how long an event may sit unacknowledged with a consumer before another
     *                  instance takes it over (that consumer is presumed dead); default 15 seconds
     * @param maxLength about how many events the stream keeps; older ones are trimmed; default 10000
     */
    public record Stream(@DefaultValue("15s") Duration claimIdle, @DefaultValue("10000") long maxLength) {

        public Stream {
            requirePositive("queuegate.stream.claim-idle", claimIdle);
            if (maxLength < 100) {
                throw new IllegalArgumentException("queuegate.stream.max-length must be at least 100, was " + maxLength);
            }
        }
    }

    /**
     * @param maxPerCaller joins without a token one caller (user id, else client address) may
     *                     make per window; above it, 429 {@code too_many_joins}; default 30
     * @param window the counting window; default 1 minute
     * @param trustedProxies proxies (addresses or CIDR blocks) whose {@code X-Forwarded-For}
     *                       is believed when finding the client address; default none
     */
    public record Joins(@DefaultValue("30") int maxPerCaller, @DefaultValue("1m") Duration window,
            List<String> trustedProxies) {

        public Joins {
            trustedProxies = trustedProxies == null ? List.of() : List.copyOf(trustedProxies);
            if (maxPerCaller < 1) {
                throw new IllegalArgumentException("queuegate.joins.max-per-caller must be at least 1, was "
                        + maxPerCaller);
            }
            requirePositive("queuegate.joins.window", window);
        }
    }

    /**
     * @param template the waiting page's HTML template; default {@code classpath:queuegate/waiting-page.html}
     * @param unavailableTemplate the page shown while Redis cannot answer on a closed route;
     *                            default {@code classpath:queuegate/unavailable-page.html}
     * @param messages message bundle base names, the first that has a text wins; default
     *                 {@code queuegate/messages} (English, Korean); put a shop's own first
     * @param heartbeat how often a live connection re-reads the real place; default 15 seconds
     */
    public record Page(@DefaultValue("classpath:queuegate/waiting-page.html") String template,
            @DefaultValue("classpath:queuegate/unavailable-page.html") String unavailableTemplate,
            @DefaultValue("queuegate/messages") List<String> messages,
            @DefaultValue("15s") Duration heartbeat) {

        public Page {
            messages = List.copyOf(messages);
            requirePositive("queuegate.page.heartbeat", heartbeat);
        }
    }

    private static void requirePositive(String property, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(property + " must be positive, was " + value);
        }
    }
}
