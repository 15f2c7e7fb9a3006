package io.queuegate.bench.framework;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.context.NoOpServerSecurityContextRepository;
import org.springframework.security.web.server.savedrequest.NoOpServerRequestCache;

/**
 * The runnable gateway's framework without QueueGate: its starters and settings (actuator,
 * Prometheus, Resilience4j, Spring Security), one route to the benchmark's backend, and Spring
 * Security set up as a shop's gateway commonly is: every request let through, and a bearer JWT
 * validated when {@code spring.security.oauth2.resourceserver.jwt.*} is set. The throughput
 * benchmark tells framework cost from QueueGate's own with it.
 */
@SpringBootApplication
public class FrameworkGatewayApplication {

    public static void main(String[] args) {
        SpringApplication.run(FrameworkGatewayApplication.class, args);
    }

    @Bean
    SecurityWebFilterChain letEverythingThrough(ServerHttpSecurity http, ObjectProvider<ReactiveJwtDecoder> jwtDecoder) {
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
