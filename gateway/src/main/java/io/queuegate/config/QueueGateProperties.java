package io.queuegate.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.queuegate.identity.IdentitySource;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Global QueueGate settings under {@code queuegate.*}; per-route settings live in route
 * metadata ({@link QueueSettings}).
 *
 * @param enabled whether the admission filter is installed; default {@code true}
 * @param identity who the caller is: the authenticated principal, or a header from a trusted proxy
 * @param trustedProxies the proxies in front of the gateway (addresses or CIDR blocks): only from
 *                       these peers is the identity header believed, and only as far as they
 *                       wrote it is {@code X-Forwarded-For}; default none
 * @param userIdHeader deprecated alias of {@code queuegate.identity.header}
 * @param token wait token signing
 * @param challenge the proof-of-work challenges of routes with {@code join-challenge: pow}
 * @param scheduler the {@code promotion: scheduler} loop
 * @param safetyNet the promotion pass that backs up the event strategies
 * @param redis how QueueGate uses Redis
 * @param recovery how the line comes back after Redis forgets (a restart, a failover, an eviction)
 * @param stream the slot-event stream of {@code promotion: stream}
 * @param joins the limits on joins per caller and per client address
 * @param events the limits on live event streams
 * @param operations the operations surface (actuator endpoints) and its exposure
 * @param server what QueueGate adds to the HTTP server's own protection
 * @param page the waiting page shown to browsers
 * @param invites the keys invitations are checked with, for routes with {@code invites} on
 * @param metrics QueueGate's metrics and the {@code queues} endpoint's list
 * @param console the operator console ({@code /actuator/queueconsole})
 * @param activeCacheTtl how long an instance may trust that a token holder is active without
 *                       asking Redis again; at most 1 second, 0 to always ask; default 1 second
 * @param maxBodySize larger request bodies on protected routes are refused with 413: by
 *                    Content-Length before Redis or the backend sees them, and counted as they
 *                    stream when the length is not declared (chunked); default 1MB
 * @param unknownProducts what a request for a product id {@code queuegate.products} does not list
 *                        gets: {@code join} (any id the route accepts is a product, and its state
 *                        lives only as long as its sessions while nobody waits in it) or
 *                        {@code refuse} (404 {@code unknown_product}, without any Redis work);
 *                        default {@code join}
 * @param routeDefaults what every route's {@code queue} block has where it sets nothing (any
 *                      route field; the route, then a product override, win over it); default none
 * @param products per-product overrides of any route {@code queue} field, by product id (kept in lower
 *                 case: {@code RD1} and {@code rd1} are one key)
 */
@ConfigurationProperties("queuegate")
public record QueueGateProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue Identity identity,
        List<String> trustedProxies,
        String userIdHeader,
        @DefaultValue Token token,
        @DefaultValue Challenge challenge,
        @DefaultValue Scheduler scheduler,
        @DefaultValue SafetyNet safetyNet,
        @DefaultValue Redis redis,
        @DefaultValue Recovery recovery,
        @DefaultValue Stream stream,
        @DefaultValue Joins joins,
        @DefaultValue Events events,
        @DefaultValue Operations operations,
        @DefaultValue Server server,
        @DefaultValue Page page,
        @DefaultValue Invites invites,
        @DefaultValue Metrics metrics,
        @DefaultValue Console console,
        @DefaultValue("1MB") DataSize maxBodySize,
        @DefaultValue("1s") Duration activeCacheTtl,
        @DefaultValue("join") UnknownProducts unknownProducts,
        QueueSettings routeDefaults,
        Map<String, QueueSettings> products) {

    /** What a request for a product {@code queuegate.products} does not list gets. */
    public enum UnknownProducts {

        /** A queue like any other: the route's pattern says which ids are products. */
        JOIN,

        /** {@code 404 unknown_product}, without any Redis work: the configured products are all there are. */
        REFUSE
    }

    /** The identity header when neither {@code queuegate.identity.header} nor its old alias is set. */
    public static final String DEFAULT_IDENTITY_HEADER = "X-User-Id";

    public QueueGateProperties {
        trustedProxies = trustedProxies == null ? List.of() : List.copyOf(trustedProxies);
        products = products == null ? Map.of() : ConfiguredProducts.folded(products);
        routeDefaults = routeDefaults == null ? QueueSettings.EMPTY : routeDefaults;
        ConfiguredProducts.check(routeDefaults, products, invites);
        PropertyChecks.requireOwnInvitationSecret(invites, token);
        if (activeCacheTtl.isNegative() || activeCacheTtl.compareTo(Duration.ofSeconds(1)) > 0) {
            throw new IllegalArgumentException("queuegate.active-cache-ttl must be between 0 and 1s, was "
                    + activeCacheTtl);
        }
    }

    /** @deprecated in 0.2.0: use {@code queuegate.identity.header} */
    @Deprecated(since = "0.2.0")
    @DeprecatedConfigurationProperty(replacement = "queuegate.identity.header", since = "0.2.0")
    public String userIdHeader() {
        return userIdHeader;
    }

    /** The header that names the caller: {@code identity.header}, else its deprecated alias, else {@code X-User-Id}. */
    public String identityHeader() {
        if (identity.header() != null) {
            return identity.header();
        }
        return userIdHeader != null ? userIdHeader : DEFAULT_IDENTITY_HEADER;
    }

    /** Every trusted proxy: {@code trusted-proxies} and the deprecated {@code joins.trusted-proxies}. */
    public List<String> allTrustedProxies() {
        List<String> all = new ArrayList<>(trustedProxies);
        joins.trustedProxies().stream().filter(proxy -> !all.contains(proxy)).forEach(all::add);
        return List.copyOf(all);
    }

    /** Properties set under their deprecated names, for one warning each at startup. */
    public List<String> deprecatedPropertiesInUse() {
        List<String> used = new ArrayList<>();
        if (userIdHeader != null) {
            used.add("queuegate.user-id-header (use queuegate.identity.header)");
        }
        if (!joins.trustedProxies().isEmpty()) {
            used.add("queuegate.joins.trusted-proxies (use queuegate.trusted-proxies)");
        }
        return used;
    }

    /**
     * @param source where the caller's identity comes from: {@code principal} (Spring Security's
     *               authenticated principal) or {@code header} (believed only from
     *               {@code queuegate.trusted-proxies}); default {@code principal}. An
     *               {@code IdentityResolver} bean of the application replaces both
     * @param header the header that names the caller with {@code source: header}, and that the
     *               forwarded request carries the decided identity in; default {@code X-User-Id}
     */
    public record Identity(@DefaultValue("principal") IdentitySource source, String header) {

        public Identity {
            if (header != null && header.isBlank()) {
                throw new IllegalArgumentException("queuegate.identity.header must not be blank");
            }
        }
    }

    /**
     * @param secret HS256 signing secret, at least 32 bytes; required (only the demo profile sets one)
     * @param previousSecrets older secrets whose tokens are still accepted during a rotation; default none
     * @param ttl lifetime of a wait token; default 2 hours
     * @param cookieSecure when the token cookie is {@code Secure}: {@code auto} (when the request
     *                     came over TLS, to the gateway or to a trusted proxy that says
     *                     {@code X-Forwarded-Proto: https}), {@code always} or {@code never};
     *                     default {@code auto}
     */
    public record Token(String secret, List<String> previousSecrets, @DefaultValue("2h") Duration ttl,
            @DefaultValue("auto") CookieSecure cookieSecure) {

        /** HS256 needs a key at least as long as its 256-bit hash. */
        public static final int MIN_SECRET_BYTES = 32;

        public Token {
            previousSecrets = previousSecrets == null ? List.of() : List.copyOf(previousSecrets);
            if (secret == null || secret.isBlank()) {
                throw new IllegalArgumentException("queuegate.token.secret is required: set it (e.g. the environment "
                        + "variable QUEUEGATE_TOKEN_SECRET) to a random value of at least " + MIN_SECRET_BYTES
                        + " bytes, such as the output of 'openssl rand -base64 48'");
            }
            PropertyChecks.requireLength("queuegate.token.secret", secret);
            previousSecrets.forEach(old -> PropertyChecks.requireLength("queuegate.token.previous-secrets", old));
            if (ttl.isNegative() || ttl.isZero()) {
                throw new IllegalArgumentException("queuegate.token.ttl must be positive, was " + ttl);
            }
        }
    }

    /**
     * @param secret the HMAC key that signs proof-of-work challenges, at least 32 bytes; default
     *               none: a key derived from {@code queuegate.token.secret} (never that secret
     *               itself), so every instance that shares the token secret shares the key
     * @param ttl how long a challenge may be solved and used, from when it was handed out; its
     *            single-use mark lives in Redis this long (plus 30 seconds); default 2 minutes. A
     *            wait ticket may be used this long once it is ready
     * @param noScriptWait what a browser without JavaScript waits instead of the proof of work, at
     *                     the base difficulty: the page refreshes itself after it and joins with a
     *                     ticket the gateway signed; it rises with the network's places as the
     *                     difficulty does; default 10 seconds, between 1 second and 10 minutes
     */
    public record Challenge(String secret, @DefaultValue("2m") Duration ttl,
            @DefaultValue("10s") Duration noScriptWait) {

        public Challenge {
            if (secret != null) {
                PropertyChecks.requireLength("queuegate.challenge.secret", secret);
            }
            if (ttl.compareTo(Duration.ofSeconds(10)) < 0 || ttl.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException("queuegate.challenge.ttl must be between 10s and 1h, was " + ttl);
            }
            if (noScriptWait.compareTo(Duration.ofSeconds(1)) < 0 || noScriptWait.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException("queuegate.challenge.no-script-wait must be between 1s and 10m, was "
                        + noScriptWait);
            }
        }
    }

    /** @param interval period of {@code promotion: scheduler}; default 5 seconds */
    public record Scheduler(@DefaultValue("5s") Duration interval) {

        public Scheduler {
            PropertyChecks.requirePositive("queuegate.scheduler.interval", interval);
        }
    }

    /** @param interval period of the safety net of the event strategies; default 30 seconds */
    public record SafetyNet(@DefaultValue("30s") Duration interval) {

        public SafetyNet {
            PropertyChecks.requirePositive("queuegate.safety-net.interval", interval);
        }
    }

    /**
     * @param timeout longest wait for one Redis call before the route's {@code on-redis-failure}
     *                applies; default 2 seconds
     * @param failFastWhenDisconnected set Lettuce's client options so that a command made while
     *                                 the connection is down fails at once (instead of waiting
     *                                 for the reconnection and timing out later), and reconnect
     *                                 at least once a second; it changes the application's own
     *                                 Redis client, so it is off in a shop's gateway and on in
     *                                 the runnable gateway; default {@code false}
     */
    public record Redis(@DefaultValue("2s") Duration timeout, @DefaultValue("false") boolean failFastWhenDisconnected) {

        public Redis {
            PropertyChecks.requirePositive("queuegate.redis.timeout", timeout);
        }
    }

    /**
     * @param window how long after Redis forgot (an empty restart, a failover to a replica that
     *               lacked the last writes, an eviction) a wait token signed before can still
     *               reclaim its place in line; afterwards unreclaimed places count as given up
     *               (admitted sessions come back until their own end, and a pre-queue's places
     *               until {@code opens-at} plus {@code abandon-after}, whichever is later). At
     *               least the longest {@code Retry-After} the gateway hands out plus 30 seconds;
     *               default 2 minutes
     */
    public record Recovery(@DefaultValue("2m") Duration window) {

        /** The longest Retry-After the gateway hands out (a closed room's) plus a page's reconnection. */
        public static final Duration MIN_WINDOW = Duration.ofSeconds(60);

        public Recovery {
            if (window.compareTo(MIN_WINDOW) < 0) {
                throw new IllegalArgumentException("queuegate.recovery.window must be at least " + MIN_WINDOW.toSeconds()
                        + "s (the longest Retry-After, 30 s, plus 30 s for a page to come back), was " + window);
            }
        }
    }

    /**
     * @param claimIdle how long an event may sit unacknowledged with a consumer before another
     *                  instance takes it over (that consumer is presumed dead); default 15 seconds
     * @param maxLength about how many events the stream keeps; older ones are trimmed; default 10000
     */
    public record Stream(@DefaultValue("15s") Duration claimIdle, @DefaultValue("10000") long maxLength) {

        public Stream {
            PropertyChecks.requirePositive("queuegate.stream.claim-idle", claimIdle);
            if (maxLength < 100) {
                throw new IllegalArgumentException("queuegate.stream.max-length must be at least 100, was " + maxLength);
            }
        }
    }

    /**
     * @param maxPerCaller joins without a token one identified caller (user id) may make per
     *                     window; above it, 429 {@code too_many_joins}; default 30
     * @param maxPerAddress joins without a token from one client address (an IPv6 /64 counts as
     *                      one) per window, identified or anonymous; higher than the per-caller
     *                      limit, since a carrier's NAT puts a crowd behind one address; default 600
     * @param window the counting window; default 1 minute
     * @param trustedProxies deprecated alias of {@code queuegate.trusted-proxies}
     */
    public record Joins(@DefaultValue("30") int maxPerCaller, @DefaultValue("600") int maxPerAddress,
            @DefaultValue("1m") Duration window, List<String> trustedProxies) {

        public Joins {
            trustedProxies = trustedProxies == null ? List.of() : List.copyOf(trustedProxies);
            if (maxPerCaller < 1) {
                throw new IllegalArgumentException("queuegate.joins.max-per-caller must be at least 1, was "
                        + maxPerCaller);
            }
            if (maxPerAddress < 1) {
                throw new IllegalArgumentException("queuegate.joins.max-per-address must be at least 1, was "
                        + maxPerAddress);
            }
            PropertyChecks.requirePositive("queuegate.joins.window", window);
        }

        /** @deprecated in 0.2.0: use {@code queuegate.trusted-proxies} */
        @Deprecated(since = "0.2.0")
        @DeprecatedConfigurationProperty(replacement = "queuegate.trusted-proxies", since = "0.2.0")
        public List<String> trustedProxies() {
            return trustedProxies;
        }
    }

    /**
     * @param maxPerShopper live event streams ({@code /queue/{productId}/events}) one shopper may
     *                      hold open on one instance at once; more get 429
     *                      {@code too_many_streams}; default 4 (a few tabs)
     * @param maxPerAddress live event streams one client address (an IPv6 /64 counts as one)
     *                      may hold open on one instance at once; default 256
     */
    public record Events(@DefaultValue("4") int maxPerShopper, @DefaultValue("256") int maxPerAddress) {

        public Events {
            if (maxPerShopper < 1 || maxPerAddress < 1) {
                throw new IllegalArgumentException("queuegate.events.max-per-shopper and max-per-address must be at "
                        + "least 1, were " + maxPerShopper + " and " + maxPerAddress);
            }
        }
    }

    /**
     * @param headerReadTimeout how long a client may take to send a request's line and headers,
     *                          from its first byte (Reactor Netty's idle timeout is reset by every
     *                          byte, so a client sending a byte at a time would hold the
     *                          connection forever); default none in a shop's gateway, 10 seconds
     *                          in the runnable gateway; {@code 0} for none
     * @param keepAliveWorkaround set Reactor Netty's JVM-wide
     *                            {@code reactor.netty.http.server.lastFlushWhenNoRead} (unless set
     *                            already), without which Reactor Netty up to 1.3.7 may stop reading a
     *                            kept-alive connection; default {@code false} in a shop's gateway (the
     *                            JVM is the application's), {@code true} in the runnable gateway
     */
    public record Server(Duration headerReadTimeout, @DefaultValue("false") boolean keepAliveWorkaround) {

        public Server {
            if (headerReadTimeout != null && headerReadTimeout.isNegative()) {
                throw new IllegalArgumentException("queuegate.server.header-read-timeout must be positive (or 0 for "
                        + "none), was " + headerReadTimeout);
            }
        }
    }

    /**
     * @param allowPublicPort let the runnable gateway start although the {@code queues} endpoint
     *                        or a writable {@code gateway} endpoint is exposed on the shopper
     *                        port (anyone who reaches the port could then steer sales or
     *                        rewrite routes); default {@code false}
     * @param allowedHosts further host names and addresses a request to the management port may
     *                     name in its {@code Host} header to change anything or open the console
     *                     (e.g. the management Service's DNS names); the loopback names and
     *                     addresses and this machine's own host name and addresses are always
     *                     allowed, {@code *} allows any (and so lets a DNS-rebinding page act);
     *                     reads other than the console are not checked; default none
     */
    public record Operations(@DefaultValue("false") boolean allowPublicPort, List<String> allowedHosts) {

        public Operations {
            allowedHosts = allowedHosts == null ? List.of() : List.copyOf(allowedHosts);
        }
    }

    /**
     * @param template the waiting page's HTML template; default {@code classpath:queuegate/waiting-page.html}
     * @param unavailableTemplate the page shown while Redis cannot answer on a closed route;
     *                            default {@code classpath:queuegate/unavailable-page.html}
     * @param challengeTemplate the page that solves a join's proof of work in the browser;
     *                          default {@code classpath:queuegate/challenge-page.html}
     * @param messages message bundle base names, the first that has a text wins; default
     *                 {@code queuegate/messages} (English, Korean); put a shop's own first
     * @param heartbeat how often a live connection repeats the shopper's place when it has not
     *                  changed, which keeps proxies from closing it; default 15 seconds
     * @param shopName the shop's name, at the top of every shopper page; default none
     * @param logoUrl the shop's logo at the top of every shopper page: an absolute {@code https}
     *                URL (whose origin the pages' Content-Security-Policy then allows images from)
     *                or a path on the gateway's own origin; default none
     * @param primaryColor the colour of headings, the place in line and the countdown, as
     *                     {@code #rgb} or {@code #rrggbb}; default none ({@code #1d1d1f})
     * @param accentColor the colour of the progress bar, the spinner and links, as {@code #rgb} or
     *                    {@code #rrggbb}; default none ({@code #0b57d0})
     * @param tagline a line of text under the shop's name (a slogan, where to get help); default none
     * @param languages the languages the pages' switch offers, as language tags, in its order: a
     *                  shopper's choice among them (a cookie) wins over the browser's languages;
     *                  give each a bundle under {@code messages}; default {@code en, ko} (fewer
     *                  than two: no switch)
     */
    public record Page(@DefaultValue("classpath:queuegate/waiting-page.html") String template,
            @DefaultValue("classpath:queuegate/unavailable-page.html") String unavailableTemplate,
            @DefaultValue("classpath:queuegate/challenge-page.html") String challengeTemplate,
            @DefaultValue("queuegate/messages") List<String> messages,
            @DefaultValue("15s") Duration heartbeat,
            String shopName, String logoUrl, String primaryColor, String accentColor, String tagline,
            @DefaultValue({ "en", "ko" }) List<String> languages) {

        /** Longest shop name and tagline: both sit on one line above the page on a phone. */
        static final int MAX_SHOP_NAME = 80;
        static final int MAX_TAGLINE = 200;

        public Page {
            messages = List.copyOf(messages);
            languages = List.copyOf(languages);
            PropertyChecks.requirePositive("queuegate.page.heartbeat", heartbeat);
            shopName = PageFields.checkLine("queuegate.page.shop-name", shopName, MAX_SHOP_NAME);
            tagline = PageFields.checkLine("queuegate.page.tagline", tagline, MAX_TAGLINE);
            primaryColor = PageFields.checkColor("queuegate.page.primary-color", primaryColor);
            accentColor = PageFields.checkColor("queuegate.page.accent-color", accentColor);
            logoUrl = PageFields.checkLogo(logoUrl);
        }

        /**
         * The origin ({@code https://host[:port]}) a logo URL loads from, or {@code null} for a path
         * or no logo: the one origin the pages' Content-Security-Policy adds to {@code img-src}.
         */
        public String logoOrigin() {
            return PageFields.logoOrigin(logoUrl);
        }
    }

    /**
     * @param secret the HS256 secret invitations are signed with, at least 32 bytes, shared with
     *               the shop that mints them; default none
     * @param publicKey an RSA or EC P-256 public key (PEM, {@code BEGIN PUBLIC KEY}) that checks
     *                  RS256 and ES256 invitations, whose private key only the shop holds;
     *                  default none
     * @param jwkSet where to read a JWK set of RSA and EC P-256 public keys from, once at startup
     *               (a resource location: {@code file:}, {@code classpath:}); never fetched while
     *               serving; default none
     */
    public record Invites(String secret, String publicKey, String jwkSet) {

        /** What a product with invitations on needs, in the words of its startup refusal. */
        public static final String WHICH_KEY = "set queuegate.invites.secret, queuegate.invites.public-key "
                + "or queuegate.invites.jwk-set";

        /** Whether any key is configured: a product with {@code invites} on needs one. */
        public boolean configured() {
            return present(secret) || present(publicKey) || present(jwkSet);
        }

        private static boolean present(String value) {
            return value != null && !value.isBlank();
        }
    }

    /**
     * @param maxProducts products that get their own {@code product} tag and gauges, and that the
     *                    {@code queues} endpoint lists; further products are tagged {@code (other)}.
     *                    Product ids come from request paths, so without a bound a client inventing
     *                    ids could grow the metrics without end
     * @param refreshInterval how often the {@code queuegate.waiting} and {@code queuegate.active}
     *                        gauges are read from Redis (a scrape itself never calls Redis)
     */
    public record Metrics(@DefaultValue("200") int maxProducts, @DefaultValue("10s") Duration refreshInterval) {

        public Metrics {
            if (maxProducts < 1) {
                throw new IllegalArgumentException("queuegate.metrics.max-products must be at least 1, was "
                        + maxProducts);
            }
            if (refreshInterval.isNegative() || refreshInterval.isZero()) {
                throw new IllegalArgumentException("queuegate.metrics.refresh-interval must be positive");
            }
        }
    }

    /**
     * @param sampleInterval how often every listed product is read from Redis for the console's list
     *                       and its admission-rate chart; default 10s
     * @param history how far back the chart goes; default 30m. The console keeps
     *                {@code history / sample-interval} points per product in memory
     * @param maxProducts the most products the console follows; default 5000. Unlike
     *                    {@code queuegate.metrics.max-products} this bounds no time series, only
     *                    this instance's memory (about 1.5 KB a product at the defaults) and the reads
     *                    of each sample
     */
    public record Console(@DefaultValue("10s") Duration sampleInterval, @DefaultValue("30m") Duration history,
            @DefaultValue("5000") int maxProducts) {

        /** Points per product beyond which a chart says nothing more and only costs memory. */
        public static final int MAX_POINTS = 2_000;

        public Console {
            PropertyChecks.requireConsole(sampleInterval, history, maxProducts, MAX_POINTS);
        }

        /** Points each product's chart holds. */
        public int points() {
            return (int) Math.max(2, history.toMillis() / sampleInterval.toMillis() + 1);
        }
    }
}
