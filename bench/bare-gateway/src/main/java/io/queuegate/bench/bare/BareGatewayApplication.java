package io.queuegate.bench.bare;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.context.NoOpServerSecurityContextRepository;
import org.springframework.security.web.server.savedrequest.NoOpServerRequestCache;

/**
 * Spring Cloud Gateway as a shop would run it without a waiting room: the runnable gateway's
 * starters and settings, one route to the benchmark's backend, and Spring Security set up as the
 * runnable gateway sets it up (every request let through, nothing added). The throughput
 * benchmark measures QueueGate's plain route against this one.
 */
@SpringBootApplication
public class BareGatewayApplication {

    public static void main(String[] args) {
        SpringApplication.run(BareGatewayApplication.class, args);
    }

    @Bean
    SecurityWebFilterChain letEverythingThrough(ServerHttpSecurity http) {
        return http.authorizeExchange(exchanges -> exchanges.anyExchange().permitAll())
                .csrf(ServerHttpSecurity.CsrfSpec::disable)
                .httpBasic(ServerHttpSecurity.HttpBasicSpec::disable)
                .formLogin(ServerHttpSecurity.FormLoginSpec::disable)
                .logout(ServerHttpSecurity.LogoutSpec::disable)
                .headers(ServerHttpSecurity.HeaderSpec::disable)
                .requestCache(cache -> cache.requestCache(NoOpServerRequestCache.getInstance()))
                .securityContextRepository(NoOpServerSecurityContextRepository.getInstance())
                .build();
    }
}
