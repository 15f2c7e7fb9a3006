package com.example.shop;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.context.NoOpServerSecurityContextRepository;
import org.springframework.security.web.server.savedrequest.NoOpServerRequestCache;

/**
 * Spring Security in the gateway finds out who the shopper is, and decides nothing else.
 *
 * <p>Access is the waiting room's and the shop's to decide, so every exchange is permitted. A
 * bearer JWT, when present, must be one the shop's identity provider signed for this gateway:
 * a forged, expired or misdirected one is answered 401 here and never reaches the waiting room,
 * so it cannot take anyone's place. Without one the shopper is anonymous to QueueGate, whatever
 * identity header it sends.
 */
@Configuration(proxyBeanMethods = false)
class ShopSecurity {

    @Bean
    SecurityWebFilterChain shopSecurityFilterChain(ServerHttpSecurity http) {
        return http
                .authorizeExchange(exchanges -> exchanges.anyExchange().permitAll())
                .oauth2ResourceServer(server -> server.jwt(Customizer.withDefaults()))
                // Every request proves itself with its own JWT: a session would let a cookie stand
                // in for an expired token, and a saved request has no login page to return from.
                .securityContextRepository(NoOpServerSecurityContextRepository.getInstance())
                .requestCache(cache -> cache.requestCache(NoOpServerRequestCache.getInstance()))
                // The shop's forms are the shop's: it protects them as it always has, and a CSRF
                // token demanded here would break the shop's own clients.
                .csrf(ServerHttpSecurity.CsrfSpec::disable)
                // The shop's answers go out as the shop wrote them (its own cache and frame rules).
                .headers(ServerHttpSecurity.HeaderSpec::disable)
                // Nobody signs in to the gateway: no login page, no password prompt, no logout.
                .formLogin(ServerHttpSecurity.FormLoginSpec::disable)
                .httpBasic(ServerHttpSecurity.HttpBasicSpec::disable)
                .logout(ServerHttpSecurity.LogoutSpec::disable)
                .build();
    }
}
