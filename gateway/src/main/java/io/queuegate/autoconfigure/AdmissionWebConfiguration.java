package io.queuegate.autoconfigure;

import java.time.Clock;
import java.util.function.Predicate;

import io.queuegate.admission.AdmissionService;
import io.queuegate.admission.CallerResolver;
import io.queuegate.admission.Sessions;
import io.queuegate.config.QueueGateProperties;
import io.queuegate.events.QueueEventHub;
import io.queuegate.identity.ClientAddresses;
import io.queuegate.identity.IdentityResolver;
import io.queuegate.identity.TrustedHeaderIdentity;
import io.queuegate.identity.TrustedProxies;
import io.queuegate.invites.InvitationVerifier;
import io.queuegate.live.LiveStatus;
import io.queuegate.live.StreamLimits;
import io.queuegate.paths.CanonicalPathFilter;
import io.queuegate.paths.OtherSpellingFilter;
import io.queuegate.paths.ProtectedPathIndex;
import io.queuegate.paths.RoutedTrailingSlashFilter;
import io.queuegate.paths.TrailingSlashFilter;
import io.queuegate.routes.RouteQueuePolicies;
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
import org.springframework.core.io.ResourceLoader;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.ServerWebExchange;

import tools.jackson.databind.json.JsonMapper;

/** The admission's HTTP face: the filter, the shoppers' endpoints and pages, and the path filters before them. */
@Configuration(proxyBeanMethods = false)
class AdmissionWebConfiguration {

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
