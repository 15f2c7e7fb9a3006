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

/**
 * What Spring Security does for shoppers in the runnable gateway: it finds out who the shopper is,
 * and nothing else. Every request is let through to the routes (the waiting room and the shop
 * decide the rest); no session, no login page, no CSRF token (the shop's own forms are the shop's),
 * and no headers added to the shop's answers. The management port's requests never reach this
 * chain: {@link ManagementPortSecurity}'s, ordered first, takes them. Once {@code spring.security.oauth2.resourceserver.jwt.*}
 * is set, a bearer JWT is validated and its subject becomes the principal QueueGate queues by
 * ({@code queuegate.identity.source: principal}); a forged or expired one is refused with 401
 * before it can take a place. Without it every shopper is anonymous to the gateway.
 */
@Configuration(proxyBeanMethods = false)
class GatewaySecurity {

    @Bean
    SecurityWebFilterChain queuegateSecurity(ServerHttpSecurity http, ObjectProvider<ReactiveJwtDecoder> jwtDecoder) {
        http.authorizeExchange(exchanges -> exchanges.anyExchange().permitAll())
                .csrf(ServerHttpSecurity.CsrfSpec::disable)
                .httpBasic(ServerHttpSecurity.HttpBasicSpec::disable)
                .formLogin(ServerHttpSecurity.FormLoginSpec::disable)
                .logout(ServerHttpSecurity.LogoutSpec::disable)
                .headers(ServerHttpSecurity.HeaderSpec::disable)
                .requestCache(cache -> cache.requestCache(NoOpServerRequestCache.getInstance()))
                .securityContextRepository(NoOpServerSecurityContextRepository.getInstance());
        if (jwtDecoder.getIfAvailable() != null) {
            http.oauth2ResourceServer(server -> server.jwt(Customizer.withDefaults()));
        }
        return http.build();
    }
}
