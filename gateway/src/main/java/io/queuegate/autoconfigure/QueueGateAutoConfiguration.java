package io.queuegate.config;

import java.time.Clock;
import java.util.function.Predicate;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.queuegate.admission.ActiveCache;
import io.queuegate.admission.AdmissionService;
import io.queuegate.admission.CallerResolver;
import io.queuegate.admission.ForwardedRequestHeaders;
import io.queuegate.admission.JoinLimiter;
import io.queuegate.admission.QueueAdmissionFilter;
import io.queuegate.admission.ReleaseHeader;
import io.queuegate.identity.ClientAddresses;
import io.queuegate.identity.ForwardedHeadersCheck;
import io.queuegate.identity.IdentityResolver;
import io.queuegate.identity.IdentitySource;
import io.queuegate.identity.IgnoredIdentityHeaders;
import io.queuegate.identity.PrincipalIdentity;
import io.queuegate.identity.TrustedHeaderIdentity;
import io.queuegate.identity.TrustedProxies;
import io.queuegate.live.AdmissionNotifier;
import io.queuegate.live.LiveStatus;
import io.queuegate.live.StreamLimits;
import io.queuegate.paths.CanonicalPathFilter;
import io.queuegate.server.HeaderReadTimeout;
import io.queuegate.ops.QueueGateHealthIndicator;
import io.queuegate.promotion.KeyspaceNotifications;
import io.queuegate.promotion.PromotionListeners;
import io.queuegate.promotion.PromotionScheduler;
import io.queuegate.promotion.SlotAvailableListener;
import io.queuegate.promotion.SlotEventConsumer;
import io.queuegate.promotion.SlotExpiryListener;
import io.queuegate.store.QueueScripts;
import io.queuegate.store.QueueStore;
import io.queuegate.store.RedisGuard;
import io.queuegate.token.SigningKeys;
import io.queuegate.token.WaitTokenCodec;
import io.queuegate.web.CorsExposedHeaders;
import io.queuegate.web.QueueEndpoints;
import io.queuegate.web.QueueResponses;
import io.queuegate.web.WaitingPage;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.cloud.gateway.config.GatewayAutoConfiguration;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.support.ResourceBundleMessageSource;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.ServerWebExchange;

import tools.jackson.databind.json.JsonMapper;

/**
 * Installs QueueGate into a Spring Cloud Gateway application: the admission filter, its Redis
 * store, tokens, the status endpoints and the promotion loops. Every bean backs off when the
 * application defines its own.
 */
@AutoConfiguration(after = { DataRedisReactiveAutoConfiguration.class, GatewayAutoConfiguration.class })
@ConditionalOnClass({ GlobalFilter.class, ReactiveStringRedisTemplate.class })
@ConditionalOnProperty(name = "queuegate.enabled", matchIfMissing = true)
@EnableConfigurationProperties(QueueGateProperties.class)
public class QueueGateAutoConfiguration {

    private static final org.apache.commons.logging.Log log =
            org.apache.commons.logging.LogFactory.getLog(QueueGateAutoConfiguration.class);

    /** The name of QueueGate's circuit breaker instance. */
    public static final String BREAKER = "queuegate";

    /*
     * Reactor Netty up to 1.3.7 stops reading a kept-alive connection when a request arrives
     * before the previous response's operations have terminated and is then answered at once
     * (reactor/reactor-netty#4361): the next request on that connection is never read, and nothing
     * times it out. Here that is an answer from Redis (sent from a Lettuce thread) followed by one
     * without Redis (the join limiter's 429, a refused id). This flag ends the previous operations
     * when the next request arrives instead of parking it. Reactor Netty reads it once, when the
     * server first accepts a connection, so it is set as QueueGate is configured, before the
     * server starts; an explicit setting wins. Remove with Reactor Netty 1.3.8 or later, which
     * needs a Netty newer than Boot 4.0.7 brings.
     */
    static {
        if (System.getProperty("reactor.netty.http.server.lastFlushWhenNoRead") == null) {
            System.setProperty("reactor.netty.http.server.lastFlushWhenNoRead", "true");
        }
    }

    @Bean
    @ConditionalOnMissingBean(name = "queuegateClock")
    Clock queuegateClock() {
        return Clock.systemUTC();
    }

    @Bean
    @ConditionalOnMissingBean
    QueueScripts queueScripts() {
        return new QueueScripts();
    }

    /**
     * The breaker named {@code queuegate}, configured the Resilience4j way under
     * {@code resilience4j.circuitbreaker.instances.queuegate}; Resilience4j's defaults apply when
     * the application has no registry of its own.
     */
    @Bean
    @ConditionalOnMissingBean
    RedisGuard redisGuard(ObjectProvider<CircuitBreakerRegistry> registry, QueueGateProperties properties) {
        CircuitBreaker breaker = registry.getIfAvailable(CircuitBreakerRegistry::ofDefaults).circuitBreaker(BREAKER);
        return new RedisGuard(breaker, properties.redis().timeout());
    }

    @Bean
    @ConditionalOnMissingBean
    QueueStore queueStore(ReactiveStringRedisTemplate redis, QueueScripts scripts, Clock queuegateClock,
            RedisGuard guard, QueueGateProperties properties) {
        return new QueueStore(redis, scripts, queuegateClock, guard, properties.stream().maxLength(),
                properties.token().ttl());
    }

    @Bean(name = "queuegate")
    @ConditionalOnClass(ReactiveHealthIndicator.class)
    @ConditionalOnMissingBean(QueueGateHealthIndicator.class)
    QueueGateHealthIndicator queuegateHealthIndicator(QueueStore store, RedisGuard guard, RouteLocator routes,
            RouteQueuePolicies policies, QueueGateProperties properties) {
        return new QueueGateHealthIndicator(store, guard, routes, policies, properties.products());
    }

    @Bean
    @ConditionalOnMissingBean
    WaitTokenCodec waitTokenCodec(QueueGateProperties properties, Clock queuegateClock) {
        QueueGateProperties.Token token = properties.token();
        return new WaitTokenCodec(new SigningKeys(token.secret(), token.previousSecrets()), token.ttl(),
                queuegateClock);
    }

    @Bean
    @ConditionalOnMissingBean
    CallerResolver callerResolver(WaitTokenCodec tokens) {
        return new CallerResolver(tokens);
    }

    @Bean
    @ConditionalOnMissingBean
    AdmissionService admissionService(CallerResolver callers, QueueStore store, WaitTokenCodec tokens,
            ActiveCache activeCache, Clock queuegateClock, QueueGateProperties properties) {
        QueueGateProperties.Joins joins = properties.joins();
        return new AdmissionService(callers, store, tokens,
                new JoinLimiter(joins.maxPerCaller(), joins.window(), queuegateClock),
                new JoinLimiter(joins.maxPerAddress(), joins.window(), queuegateClock), activeCache);
    }

    @Bean
    @ConditionalOnMissingBean
    TrustedProxies queuegateTrustedProxies(QueueGateProperties properties) {
        properties.deprecatedPropertiesInUse().forEach(property -> log.warn("Deprecated property in use: " + property));
        return new TrustedProxies(properties.allTrustedProxies());
    }

    /**
     * Who the caller is, from {@code queuegate.identity.source}; an application's own
     * {@link IdentityResolver} bean replaces it.
     */
    @Bean
    @ConditionalOnMissingBean
    IdentityResolver queuegateIdentityResolver(QueueGateProperties properties, TrustedProxies proxies,
            Clock queuegateClock) {
        IgnoredIdentityHeaders ignored = new IgnoredIdentityHeaders(properties.identityHeader(), queuegateClock);
        if (properties.identity().source() == IdentitySource.HEADER) {
            if (proxies.isEmpty()) {
                log.warn("queuegate.identity.source is header, but queuegate.trusted-proxies is empty: the header is "
                        + "believed from nobody, and every caller is anonymous");
            }
            return new TrustedHeaderIdentity(properties.identityHeader(), proxies, ignored);
        }
        return new PrincipalIdentity(ignored);
    }

    @Bean
    @ConditionalOnMissingBean
    ForwardedHeadersCheck queuegateForwardedHeadersCheck(Environment environment, QueueGateProperties properties) {
        return new ForwardedHeadersCheck(environment, properties.identity().source() == IdentitySource.HEADER);
    }

    /** Only when {@code queuegate.server.header-read-timeout} is set: the server is the application's. */
    @Bean
    @ConditionalOnClass(name = "reactor.netty.http.server.HttpServer")
    @ConditionalOnProperty("queuegate.server.header-read-timeout")
    HeaderReadTimeout queuegateHeaderReadTimeout(QueueGateProperties properties) {
        return new HeaderReadTimeout(properties.server().headerReadTimeout());
    }

    @Bean
    @ConditionalOnMissingBean
    CanonicalPathFilter queuegateCanonicalPathFilter(ObjectProvider<RouteLocator> routes, QueueResponses responses,
            QueueStore store) {
        return new CanonicalPathFilter(routes, responses, store.events());
    }

    @Bean
    @ConditionalOnMissingBean
    ActiveCache activeCache(ReactiveStringRedisTemplate redis, Clock queuegateClock, QueueGateProperties properties) {
        return new ActiveCache(redis, queuegateClock, properties.activeCacheTtl());
    }

    @Bean
    @ConditionalOnMissingBean
    ClientAddresses clientAddresses(TrustedProxies proxies) {
        return new ClientAddresses(proxies);
    }

    @Bean
    @ConditionalOnMissingBean
    RouteQueuePolicies routeQueuePolicies(QueueGateProperties properties) {
        return new RouteQueuePolicies(properties.products());
    }

    @Bean
    @ConditionalOnMissingBean
    WaitingPage waitingPage(QueueGateProperties properties, ResourceLoader resources) {
        QueueGateProperties.Page page = properties.page();
        ResourceBundleMessageSource messages = new ResourceBundleMessageSource();
        messages.setBasenames(page.messages().toArray(String[]::new));
        messages.setDefaultEncoding("UTF-8");
        // A language without its own bundle gets the base (English) texts, not the server's locale.
        messages.setFallbackToSystemLocale(false);
        return new WaitingPage(resources.getResource(page.template()), resources.getResource(page.unavailableTemplate()),
                messages);
    }

    @Bean
    @ConditionalOnMissingBean
    QueueResponses queueResponses(ObjectProvider<JsonMapper> json, WaitingPage page, QueueGateProperties properties) {
        return new QueueResponses(json.getIfAvailable(JsonMapper::new), page, properties.token().ttl());
    }

    @Bean
    @ConditionalOnMissingBean
    QueueAdmissionFilter queueAdmissionFilter(RouteQueuePolicies policies, AdmissionService admission,
            QueueStore store, QueueResponses responses, ClientAddresses clientAddresses, IdentityResolver identities,
            QueueGateProperties properties) {
        return new QueueAdmissionFilter(policies, admission, store, responses, clientAddresses, identities,
                properties.maxBodySize().toBytes());
    }

    @Bean
    @ConditionalOnMissingBean
    ForwardedRequestHeaders queuegateForwardedRequestHeaders(QueueGateProperties properties,
            IdentityResolver identities) {
        Predicate<ServerWebExchange> believed = exchange -> false;
        if (identities instanceof TrustedHeaderIdentity trusted) {
            believed = trusted::believes;
        }
        return new ForwardedRequestHeaders(properties.identityHeader(), believed);
    }

    /** Static: a bean post-processor must not pull the configuration's other beans in early. */
    @Bean
    static CorsExposedHeaders queuegateCorsExposedHeaders() {
        return new CorsExposedHeaders();
    }

    @Bean
    @ConditionalOnMissingBean
    ReleaseHeader queuegateReleaseHeader() {
        return new ReleaseHeader();
    }

    @Bean
    @ConditionalOnMissingBean
    QueueEndpoints queueEndpoints(CallerResolver callers, QueueStore store, QueueResponses responses,
            LiveStatus liveStatus, AdmissionService admission, IdentityResolver identities,
            ClientAddresses clientAddresses, QueueGateProperties properties) {
        return new QueueEndpoints(callers, store, responses, liveStatus, admission, identities, clientAddresses,
                new StreamLimits(properties.events().maxPerShopper(), properties.events().maxPerAddress()));
    }

    @Bean
    @ConditionalOnMissingBean
    AdmissionNotifier admissionNotifier(ReactiveStringRedisTemplate redis) {
        return new AdmissionNotifier(redis);
    }

    @Bean
    @ConditionalOnMissingBean
    LiveStatus liveStatus(QueueStore store, AdmissionNotifier notifier, QueueGateProperties properties) {
        return new LiveStatus(store, notifier, properties.page().heartbeat());
    }

    @Bean
    RouterFunction<ServerResponse> queuegateRoutes(QueueEndpoints endpoints) {
        return endpoints.routes();
    }

    @Bean
    @ConditionalOnMissingBean
    PromotionScheduler promotionScheduler(QueueStore store, QueueGateProperties properties) {
        return new PromotionScheduler(store, properties.scheduler().interval(), properties.safetyNet().interval());
    }

    @Bean
    @ConditionalOnMissingBean
    SlotAvailableListener slotAvailableListener(ReactiveStringRedisTemplate redis, QueueStore store) {
        return new SlotAvailableListener(redis, store);
    }

    @Bean
    @ConditionalOnMissingBean
    SlotExpiryListener slotExpiryListener(ReactiveStringRedisTemplate redis, QueueStore store) {
        return new SlotExpiryListener(redis, store);
    }

    @Bean
    @ConditionalOnMissingBean
    KeyspaceNotifications keyspaceNotifications(ReactiveRedisConnectionFactory connections) {
        return new KeyspaceNotifications(connections);
    }

    @Bean
    @ConditionalOnMissingBean
    SlotEventConsumer slotEventConsumer(ReactiveRedisConnectionFactory connections, QueueStore store,
            QueueGateProperties properties) {
        return new SlotEventConsumer(connections, store, properties.stream().claimIdle());
    }

    @Bean
    @ConditionalOnMissingBean
    PromotionListeners promotionListeners(SlotAvailableListener slotAvailable, SlotExpiryListener slotExpiry,
            KeyspaceNotifications keyspaceNotifications, SlotEventConsumer slotEvents) {
        return new PromotionListeners(slotAvailable, slotExpiry, keyspaceNotifications, slotEvents);
    }

    @Bean
    @ConditionalOnMissingBean
    QueueRouteValidator queueRouteValidator(RouteLocator routeLocator, RouteQueuePolicies policies,
            QueueGateProperties properties, PromotionListeners listeners, Environment environment) {
        return new QueueRouteValidator(routeLocator, policies, properties.products(), listeners, environment,
                properties.page().heartbeat());
    }
}
