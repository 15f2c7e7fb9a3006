package io.queuegate.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.function.Predicate;

import io.queuegate.admission.ActiveCache;
import io.queuegate.admission.AdmissionService;
import io.queuegate.admission.CallerResolver;
import io.queuegate.admission.JoinLimiter;
import io.queuegate.admission.Sessions;
import io.queuegate.challenge.JoinGate;
import io.queuegate.challenge.JoinRates;
import io.queuegate.challenge.ProofOfWork;
import io.queuegate.challenge.WaitTickets;
import io.queuegate.config.QueueGateProperties;
import io.queuegate.events.QueueEventHub;
import io.queuegate.events.QueueEvents;
import io.queuegate.events.Trigger;
import io.queuegate.identity.ClientAddresses;
import io.queuegate.identity.IdentityResolver;
import io.queuegate.identity.TrustedHeaderIdentity;
import io.queuegate.identity.TrustedProxies;
import io.queuegate.invites.InvitationKeys;
import io.queuegate.invites.InvitationVerifier;
import io.queuegate.line.LineViews;
import io.queuegate.line.LocalAnswers;
import io.queuegate.line.SeenMarks;
import io.queuegate.live.AdmissionNotifier;
import io.queuegate.live.LiveStatus;
import io.queuegate.live.StreamLimits;
import io.queuegate.paths.CanonicalPathFilter;
import io.queuegate.paths.OtherSpellingFilter;
import io.queuegate.paths.ProtectedPathIndex;
import io.queuegate.paths.RoutedTrailingSlashFilter;
import io.queuegate.paths.TrailingSlashFilter;
import io.queuegate.recovery.Reclaims;
import io.queuegate.recovery.SessionLedger;
import io.queuegate.routes.RouteQueuePolicies;
import io.queuegate.store.Channels;
import io.queuegate.store.ProductQueues;
import io.queuegate.store.QueueScripts;
import io.queuegate.token.SigningKeys;
import io.queuegate.token.WaitTokenCodec;
import io.queuegate.web.AmbiguousCredentialsFilter;
import io.queuegate.web.ClientScripts;
import io.queuegate.web.CorsExposedHeaders;
import io.queuegate.web.ForwardedRequestHeaders;
import io.queuegate.web.PageBranding;
import io.queuegate.web.PageLanguages;
import io.queuegate.web.QueueAdmissionFilter;
import io.queuegate.web.QueueEndpoints;
import io.queuegate.web.QueueEndpointsCors;
import io.queuegate.web.QueuePaths;
import io.queuegate.web.QueueResponses;
import io.queuegate.web.ReleaseHeader;
import io.queuegate.web.StockHeader;
import io.queuegate.web.SecureCookies;
import io.queuegate.web.StreamLeaseRelease;
import io.queuegate.web.WaitingPage;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.gateway.config.GlobalCorsProperties;
import org.springframework.cloud.gateway.filter.WeightCalculatorWebFilter;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.ResourceBundleMessageSource;
import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.ServerWebExchange;

import tools.jackson.databind.json.JsonMapper;

/** The admission decision and its HTTP face: the filter, the shoppers' endpoints and pages, live updates. */
@Configuration(proxyBeanMethods = false)
class AdmissionConfiguration {

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
    ActiveCache activeCache(Channels channels, Clock queuegateClock, QueueGateProperties properties) {
        return new ActiveCache(channels, queuegateClock, properties.activeCacheTtl());
    }

    @Bean
    @ConditionalOnMissingBean
    AdmissionService admissionService(CallerResolver callers, ProductQueues queues, WaitTokenCodec tokens,
            ActiveCache activeCache, Clock queuegateClock, QueueEventHub events, QueueGateProperties properties,
            LocalAnswers localAnswers, JoinGate joinGate, Reclaims reclaims) {
        QueueGateProperties.Joins joins = properties.joins();
        return new AdmissionService(callers, queues, tokens,
                new JoinLimiter(joins.maxPerCaller(), joins.window(), queuegateClock),
                new JoinLimiter(joins.maxPerAddress(), joins.window(), queuegateClock), activeCache, events,
                localAnswers, joinGate, reclaims);
    }

    @Bean
    @ConditionalOnMissingBean
    Sessions queuegateSessions(ProductQueues queues, ActiveCache activeCache, QueueEventHub events,
            LocalAnswers localAnswers, WaitTokenCodec tokens, Reclaims reclaims) {
        return new Sessions(queues, activeCache, events, localAnswers, tokens, reclaims);
    }

    /**
     * Challenges are signed with {@code queuegate.challenge.secret}, or else with a key derived
     * from the token secret; while the token secret rotates, challenges signed under a previous
     * one are still accepted (they live minutes).
     */
    @Bean
    @ConditionalOnMissingBean
    JoinGate queuegateJoinGate(QueueGateProperties properties, Clock queuegateClock) {
        QueueGateProperties.Challenge challenge = properties.challenge();
        QueueGateProperties.Token token = properties.token();
        String key = challenge.secret() != null ? challenge.secret() : ProofOfWork.derivedKey(token.secret());
        List<String> previousKeys = challenge.secret() != null ? List.of()
                : token.previousSecrets().stream().map(ProofOfWork::derivedKey).toList();
        ProofOfWork proofOfWork = new ProofOfWork(key, previousKeys, challenge.ttl(), queuegateClock);
        WaitTickets tickets = new WaitTickets(WaitTickets.derivedKey(key),
                previousKeys.stream().map(WaitTickets::derivedKey).toList(), challenge.ttl(), queuegateClock);
        return new JoinGate(proofOfWork, new JoinRates(queuegateClock), tickets, challenge.noScriptWait());
    }

    @Bean
    @ConditionalOnMissingBean
    LineViews lineViews(QueueScripts scripts, Channels channels, Clock queuegateClock, QueueEventHub events) {
        LineViews views = new LineViews(scripts, channels, queuegateClock);
        // This instance's own admissions and operator changes count at once, before its answer leaves.
        events.register(new QueueEvents() {
            @Override
            public void promoted(String productId, Trigger trigger, long promoted) {
                views.admitted(productId, promoted);
            }

            @Override
            public void operatorAction(String productId, String action, String value, long promoted) {
                views.changed(productId);
            }
        });
        return views;
    }

    @Bean
    @ConditionalOnMissingBean
    SeenMarks seenMarks(QueueScripts scripts, Clock queuegateClock) {
        return new SeenMarks(scripts, queuegateClock);
    }

    @Bean
    @ConditionalOnMissingBean
    LocalAnswers localAnswers(LineViews views, SeenMarks seen, Clock queuegateClock) {
        return new LocalAnswers(views, seen, queuegateClock);
    }

    @Bean
    @ConditionalOnMissingBean
    RouteQueuePolicies routeQueuePolicies(QueueGateProperties properties) {
        return new RouteQueuePolicies(properties.routeDefaults(), properties.products());
    }

    @Bean
    @ConditionalOnMissingBean
    WaitingPage waitingPage(QueueGateProperties properties, ResourceLoader resources, Clock queuegateClock) {
        QueueGateProperties.Page page = properties.page();
        ResourceBundleMessageSource messages = new ResourceBundleMessageSource();
        messages.setBasenames(page.messages().toArray(String[]::new));
        messages.setDefaultEncoding("UTF-8");
        // A language without its own bundle gets the base (English) texts, not the server's locale.
        messages.setFallbackToSystemLocale(false);
        return new WaitingPage(resources.getResource(page.template()), resources.getResource(page.unavailableTemplate()),
                resources.getResource(page.challengeTemplate()), messages,
                new PageBranding(page.shopName(), page.logoUrl(), page.logoOrigin(), page.primaryColor(),
                        page.accentColor(), page.tagline()),
                queuegateClock, new PageLanguages(page.languages()));
    }

    @Bean
    @ConditionalOnMissingBean
    QueueResponses queueResponses(ObjectProvider<JsonMapper> json, WaitingPage page, QueueGateProperties properties,
            TrustedProxies proxies) {
        return new QueueResponses(json.getIfAvailable(JsonMapper::new), page, properties.token().ttl(),
                new SecureCookies(properties.token().cookieSecure(), proxies));
    }

    @Bean
    @ConditionalOnMissingBean
    QueueAdmissionFilter queueAdmissionFilter(RouteQueuePolicies policies, AdmissionService admission,
            Sessions sessions, QueueEventHub events, QueueResponses responses, ClientAddresses clientAddresses,
            IdentityResolver identities, QueueGateProperties properties, InvitationVerifier invitations,
            Clock queuegateClock) {
        return new QueueAdmissionFilter(policies, admission, sessions, events, responses, clientAddresses, identities,
                properties.maxBodySize().toBytes(), invitations,
                properties.unknownProducts() == QueueGateProperties.UnknownProducts.REFUSE, queuegateClock);
    }

    /** Read once at startup: a JWK set is never fetched while shoppers wait on it. */
    @Bean
    @ConditionalOnMissingBean
    InvitationVerifier invitationVerifier(QueueGateProperties properties, ResourceLoader resources,
            Clock queuegateClock) {
        QueueGateProperties.Invites invites = properties.invites();
        String jwkSet = null;
        if (invites.jwkSet() != null && !invites.jwkSet().isBlank()) {
            Resource location = resources.getResource(invites.jwkSet().strip());
            try (InputStream in = location.getInputStream()) {
                jwkSet = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            catch (IOException ex) {
                throw new IllegalStateException("queuegate.invites.jwk-set cannot be read from " + invites.jwkSet()
                        + ": " + ex.getMessage(), ex);
            }
        }
        return new InvitationVerifier(InvitationKeys.of(invites.secret(), invites.publicKey(), jwkSet), queuegateClock);
    }

    @Bean
    @ConditionalOnMissingBean
    CanonicalPathFilter queuegateCanonicalPathFilter(QueueResponses responses, QueueEventHub events) {
        return new CanonicalPathFilter(responses, events);
    }

    @Bean
    @ConditionalOnMissingBean
    TrailingSlashFilter queuegateTrailingSlashFilter(ObjectProvider<RouteLocator> routes,
            ObjectProvider<WeightCalculatorWebFilter> weights, QueueResponses responses, QueueEventHub events) {
        return new TrailingSlashFilter(routes, weights, responses, events);
    }

    @Bean
    @ConditionalOnMissingBean
    ProtectedPathIndex queuegateProtectedPathIndex(ObjectProvider<RouteLocator> routes) {
        return new ProtectedPathIndex(routes);
    }

    @Bean
    @ConditionalOnMissingBean
    OtherSpellingFilter queuegateOtherSpellingFilter(ProtectedPathIndex index, QueueResponses responses,
            QueueEventHub events) {
        return new OtherSpellingFilter(index, responses, events);
    }

    @Bean
    @ConditionalOnMissingBean
    RoutedTrailingSlashFilter queuegateRoutedTrailingSlashFilter(QueueResponses responses, QueueEventHub events) {
        return new RoutedTrailingSlashFilter(responses, events);
    }

    @Bean
    @ConditionalOnMissingBean
    ForwardedRequestHeaders queuegateForwardedRequestHeaders(QueueGateProperties properties,
            IdentityResolver identities) {
        return new ForwardedRequestHeaders(properties.identityHeader(), identityHeaderBelieved(identities));
    }

    @Bean
    @ConditionalOnMissingBean
    AmbiguousCredentialsFilter queuegateAmbiguousCredentialsFilter(QueueGateProperties properties,
            IdentityResolver identities, QueueResponses responses, QueueEventHub events) {
        return new AmbiguousCredentialsFilter(properties.identityHeader(), identityHeaderBelieved(identities),
                responses, events);
    }

    /** Whether a request's own identity header is its identity: only when a trusted proxy wrote it. */
    private static Predicate<ServerWebExchange> identityHeaderBelieved(IdentityResolver identities) {
        if (identities instanceof TrustedHeaderIdentity trusted) {
            return trusted::believes;
        }
        return exchange -> false;
    }

    @Bean
    @ConditionalOnMissingBean
    ReleaseHeader queuegateReleaseHeader() {
        return new ReleaseHeader();
    }

    @Bean
    @ConditionalOnMissingBean
    StockHeader queuegateStockHeader() {
        return new StockHeader();
    }

    /** Static: a bean post-processor must not pull the configuration's other beans in early. */
    @Bean
    static CorsExposedHeaders queuegateCorsExposedHeaders() {
        return new CorsExposedHeaders();
    }

    @Bean
    @ConditionalOnMissingBean
    AdmissionNotifier admissionNotifier(Channels channels, LineViews views, SessionLedger ledger) {
        return new AdmissionNotifier(channels, (productId, users) -> {
            views.announced(productId, users);
            ledger.announced(productId, users);
        });
    }

    @Bean
    @ConditionalOnMissingBean
    LiveStatus liveStatus(ProductQueues queues, AdmissionNotifier notifier, LocalAnswers localAnswers,
            WaitTokenCodec tokens, Reclaims reclaims, QueueGateProperties properties) {
        return new LiveStatus(queues, notifier, localAnswers, tokens, reclaims, properties.page().heartbeat());
    }

    @Bean
    @ConditionalOnMissingBean
    QueueEndpoints queueEndpoints(CallerResolver callers, Sessions sessions, QueueResponses responses,
            LiveStatus liveStatus, IdentityResolver identities, ClientAddresses clientAddresses,
            QueueGateProperties properties, RouteQueuePolicies policies) {
        return new QueueEndpoints(callers, sessions, responses, liveStatus, identities, clientAddresses,
                new StreamLimits(properties.events().maxPerShopper(), properties.events().maxPerAddress()),
                (productId, locale) -> policies.label(productId).displayName(locale, productId));
    }

    @Bean
    @ConditionalOnMissingBean
    StreamLeaseRelease queuegateStreamLeaseRelease() {
        return new StreamLeaseRelease();
    }

    /**
     * The shoppers' endpoints, under the gateway's global CORS like its routes, and the JavaScript
     * client single-page apps load from beside them: in a handler mapping of their own, not as a
     * router function bean that every forwarded request would be tried against.
     */
    @Bean
    QueuePaths queuegatePaths(QueueEndpoints endpoints, ObjectProvider<GlobalCorsProperties> cors,
            ObjectProvider<ServerCodecConfigurer> codecs) {
        GlobalCorsProperties globalCors = cors.getIfAvailable();
        RouterFunction<ServerResponse> routes = QueueEndpointsCors.of(endpoints.routes(),
                globalCors == null ? null : globalCors.getCorsConfigurations()).and(new ClientScripts().routes());
        // WebFlux's codecs where its configuration runs; the defaults where it does not (a context
        // with only QueueGate's auto-configuration).
        return new QueuePaths(routes, codecs.getIfAvailable(ServerCodecConfigurer::create));
    }
}
