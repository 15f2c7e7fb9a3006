package io.queuegate.app;

import java.util.Set;

import io.queuegate.ops.OperationsRequestGuard;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.WebFilterChainProxy;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import reactor.core.publisher.Mono;

/**
 * Spring Security on a shopper's request only when it has work to do there. Without a JWT to
 * validate, no chain of the runnable gateway matches a shopper's request, yet Spring Security's
 * filter would still wrap every one in its firewall and ask each chain in turn: a tenth of what a
 * route without a queue costs. So while the gateway's chains are its own two
 * ({@link GatewaySecurity}'s and {@link ManagementPortSecurity}'s) and no JWT is validated, only the
 * management server's requests pass through Spring Security; a shopper's request meets what a bare
 * Spring Cloud Gateway's does (QueueGate's own path checks refuse what the firewall would refuse of
 * a path). A JWT to validate, a chain a shop adds, or an actuator that shares the shopper port puts
 * Spring Security back on every request.
 */
final class ShopperPathSecurity implements BeanPostProcessor, BeanFactoryAware, EnvironmentAware {

    /** The chains the runnable gateway defines itself, by bean name. */
    static final Set<String> OWN_CHAINS = Set.of("queuegateSecurity", "queuegateManagementSecurity");

    /** Where Spring Security puts its filter ({@code WebFluxSecurityConfiguration}'s, not public). */
    static final int SPRING_SECURITY_ORDER = -100;

    private ListableBeanFactory beans;
    private Environment environment;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beans = (ListableBeanFactory) beanFactory;
    }

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        return bean instanceof WebFilterChainProxy security ? new Filter(security, this) : bean;
    }

    /**
     * Whether shoppers' requests may skip Spring Security: asked once, when the first request
     * comes, so that every chain and decoder bean exists by then.
     */
    boolean shoppersSkip() {
        return shoppersSkip(Set.of(beans.getBeanNamesForType(SecurityWebFilterChain.class)),
                beans.getBeanNamesForType(ReactiveJwtDecoder.class).length > 0, ManagementPortType.get(environment));
    }

    static boolean shoppersSkip(Set<String> chains, boolean validatesJwts, ManagementPortType management) {
        return OWN_CHAINS.containsAll(chains) && !validatesJwts && management != ManagementPortType.SAME;
    }

    /** Spring Security's filter, in its place, for the requests that need it. */
    static final class Filter implements WebFilter, Ordered {

        private final WebFilterChainProxy security;
        private final ShopperPathSecurity decision;
        private volatile Boolean shoppersSkip;

        Filter(WebFilterChainProxy security, ShopperPathSecurity decision) {
            this.security = security;
            this.decision = decision;
        }

        @Override
        public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
            Boolean skip = shoppersSkip;
            if (skip == null) {
                skip = decision.shoppersSkip();
                shoppersSkip = skip;
            }
            if (skip && !OperationsRequestGuard.onManagementServer(exchange)) {
                return chain.filter(exchange);
            }
            return security.filter(exchange, chain);
        }

        boolean shoppersSkip() {
            return Boolean.TRUE.equals(shoppersSkip);
        }

        @Override
        public int getOrder() {
            return SPRING_SECURITY_ORDER;
        }
    }
}
