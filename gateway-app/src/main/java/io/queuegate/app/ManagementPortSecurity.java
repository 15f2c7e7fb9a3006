package io.queuegate.app;

import java.util.List;
import java.util.regex.Pattern;

import io.queuegate.ops.OperationsRequestGuard;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.security.autoconfigure.SecurityProperties;
import org.springframework.boot.security.autoconfigure.actuate.web.reactive.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpMethod;
import org.springframework.security.authentication.ReactiveAuthenticationManager;
import org.springframework.security.authentication.UserDetailsRepositoryReactiveAuthenticationManager;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.ReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.context.NoOpServerSecurityContextRepository;
import org.springframework.security.web.server.savedrequest.NoOpServerRequestCache;
import org.springframework.security.web.server.util.matcher.OrServerWebExchangeMatcher;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatcher;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatcher.MatchResult;
import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Mono;

/**
 * The operator's login on the management port. Whoever reaches that port may read what probes and
 * Prometheus read ({@code health}, {@code info}, {@code prometheus}, the read-only {@code gateway}
 * endpoint and the {@code queues} listing); everything else there (a change to a queue, the
 * console, any endpoint a shop exposes besides) needs the operator's login, over HTTP Basic so
 * curl and the console's own requests send it alike. The login is Spring Boot's: the application's
 * {@link ReactiveUserDetailsService} if it has one, else {@code spring.security.user.name} and
 * {@code password}, else user {@code user} with a password generated at startup and logged once.
 * A shopper's JWT is no login here: the shop's identity provider vouches for shoppers.
 * <p>
 * The chain matches the management server only (by the namespace Spring Boot gives its context,
 * so any port number, {@code 0} included), and comes before the shopper chain; while the gateway
 * validates no JWT, a shopper's request does not meet Spring Security at all ({@link ShopperPathSecurity}).
 * Where the actuator shares the shopper port ({@code queuegate.operations.allow-public-port}) it
 * matches the actuator's paths there instead. No CSRF token: curl sends none, and the operations
 * guard refuses changes another site or a rebinding page makes an operator's browser send.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(SecurityProperties.class)
class ManagementPortSecurity {

    private static final Log log = LogFactory.getLog(ManagementPortSecurity.class);

    /** What probes, scrapers and monitoring tools read: open to the network that reaches the port. */
    static final List<String> OPEN_READS = List.of("health", "info", "prometheus", "gateway", "queues");

    private static final Pattern ENCODED = Pattern.compile("^\\{.+}.*$");

    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    SecurityWebFilterChain queuegateManagementSecurity(ServerHttpSecurity http, Environment environment,
            SecurityProperties security, ObjectProvider<ReactiveUserDetailsService> users,
            ObjectProvider<PasswordEncoder> encoder) {
        ServerWebExchangeMatcher reads = new OrServerWebExchangeMatcher(
                EndpointRequest.to(OPEN_READS.toArray(String[]::new)).withHttpMethod(HttpMethod.GET),
                EndpointRequest.to(OPEN_READS.toArray(String[]::new)).withHttpMethod(HttpMethod.HEAD));
        ReactiveAuthenticationManager operators = operators(security, users.getIfAvailable(), encoder.getIfAvailable());
        return http.securityMatcher(managementServer(environment))
                .authorizeExchange(exchanges -> exchanges.matchers(reads).permitAll().anyExchange().authenticated())
                .httpBasic(basic -> basic.authenticationManager(operators))
                .formLogin(ServerHttpSecurity.FormLoginSpec::disable)
                .logout(ServerHttpSecurity.LogoutSpec::disable)
                .csrf(ServerHttpSecurity.CsrfSpec::disable)
                // Each request brings its login: no session a stolen cookie could ride on.
                .securityContextRepository(NoOpServerSecurityContextRepository.getInstance())
                .requestCache(cache -> cache.requestCache(NoOpServerRequestCache.getInstance()))
                .build();
    }

    /** The requests of the management server, whatever its port; the actuator's paths where it has none of its own. */
    static ServerWebExchangeMatcher managementServer(Environment environment) {
        return switch (ManagementPortType.get(environment)) {
            case DIFFERENT -> new ManagementServerMatcher();
            case SAME -> EndpointRequest.toAnyEndpoint();
            case DISABLED -> exchange -> ManagementServerMatcher.NO_MATCH;
        };
    }

    private static ReactiveAuthenticationManager operators(SecurityProperties security,
            ReactiveUserDetailsService applications, PasswordEncoder encoder) {
        ReactiveUserDetailsService users = applications != null ? applications : operator(security.getUser(), encoder);
        UserDetailsRepositoryReactiveAuthenticationManager manager =
                new UserDetailsRepositoryReactiveAuthenticationManager(users);
        if (encoder != null) {
            manager.setPasswordEncoder(encoder);
        }
        return manager;
    }

    /** As Spring Boot makes its default user: {@code {noop}} unless the password names its encoding. */
    private static ReactiveUserDetailsService operator(SecurityProperties.User user, PasswordEncoder encoder) {
        String password = user.getPassword();
        if (user.isPasswordGenerated()) {
            // WARN, not Boot's INFO: the runnable gateway logs at WARN in production, and without this
            // line nobody could act on the queues.
            log.warn(String.format("%n%nUsing generated security password: %s%n%nIt is the password of user '%s', the "
                    + "operator login of the management port (changes to /actuator/queues, the console). Set "
                    + "spring.security.user.password (and .name) to choose one; every gateway generates its own.%n",
                    password, user.getName()));
        }
        if (encoder == null && !ENCODED.matcher(password).matches()) {
            password = "{noop}" + password;
        }
        return new MapReactiveUserDetailsService(User.withUsername(user.getName()).password(password)
                .roles(user.getRoles().toArray(String[]::new)).build());
    }

    /** Matches on the management server's context; prepared results, so a shopper's request allocates nothing here. */
    static final class ManagementServerMatcher implements ServerWebExchangeMatcher {

        static final Mono<MatchResult> MATCH = MatchResult.match();
        static final Mono<MatchResult> NO_MATCH = MatchResult.notMatch();

        @Override
        public Mono<MatchResult> matches(ServerWebExchange exchange) {
            return OperationsRequestGuard.onManagementServer(exchange) ? MATCH : NO_MATCH;
        }

        @Override
        public String toString() {
            return "ManagementServerMatcher";
        }
    }
}
