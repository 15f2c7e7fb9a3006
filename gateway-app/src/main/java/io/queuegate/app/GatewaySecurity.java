package io.queuegate.app;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.context.NoOpServerSecurityContextRepository;
import org.springframework.security.web.server.savedrequest.NoOpServerRequestCache;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatcher.MatchResult;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatchers;

import reactor.core.publisher.Mono;

/**
 * What Spring Security does for shoppers in the runnable gateway: it finds out who the shopper is,
 * and nothing else. Once {@code spring.security.oauth2.resourceserver.jwt.*} is set, a bearer JWT
 * is validated and its subject becomes the principal QueueGate queues by
 * ({@code queuegate.identity.source: principal}); a forged or expired one is refused with 401
 * before it can take a place. Every request is let through to the routes (the waiting room and the
 * shop decide the rest); no session, no login page, no CSRF token (the shop's own forms are the
 * shop's), and no headers added to the shop's answers. Without a JWT to validate there is nothing
 * for Spring Security to do for shoppers, so the chain matches no request and
 * {@link ShopperPathSecurity} keeps Spring Security off shoppers' requests altogether: every shopper
 * is anonymous to the gateway. The management port's
 * requests never reach this chain: {@link ManagementPortSecurity}'s, ordered first, takes them.
 */
@Configuration(proxyBeanMethods = false)
class GatewaySecurity {

    /** Prepared once: the chain's answer to every request when it has no JWT to validate. */
    private static final Mono<MatchResult> NO_MATCH = MatchResult.notMatch();

    /** Keeps Spring Security off shoppers' requests while this chain has nothing to do for them. */
    @Bean
    static ShopperPathSecurity shopperPathSecurity() {
        return new ShopperPathSecurity();
    }

    @Bean
    SecurityWebFilterChain queuegateSecurity(ServerHttpSecurity http, ObjectProvider<ReactiveJwtDecoder> jwtDecoder) {
        boolean validatesJwts = jwtDecoder.getIfAvailable() != null;
        http.securityMatcher(validatesJwts ? ServerWebExchangeMatchers.anyExchange() : exchange -> NO_MATCH)
                .authorizeExchange(exchanges -> exchanges.anyExchange().permitAll())
                .csrf(ServerHttpSecurity.CsrfSpec::disable)
                .httpBasic(ServerHttpSecurity.HttpBasicSpec::disable)
                .formLogin(ServerHttpSecurity.FormLoginSpec::disable)
                .logout(ServerHttpSecurity.LogoutSpec::disable)
                .headers(ServerHttpSecurity.HeaderSpec::disable)
                .requestCache(cache -> cache.requestCache(NoOpServerRequestCache.getInstance()))
                .securityContextRepository(NoOpServerSecurityContextRepository.getInstance());
        if (validatesJwts) {
            http.oauth2ResourceServer(server -> server.jwt(Customizer.withDefaults()));
        }
        return http.build();
    }
}
