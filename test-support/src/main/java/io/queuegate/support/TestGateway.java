package io.queuegate.support;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ReactorResourceFactory;

/**
 * A shop's gateway with nothing but Spring Cloud Gateway and QueueGate's auto-configuration: what
 * the library's tests run. The runnable gateway (gateway-app) has tests of its own for its
 * shipped configuration.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class TestGateway {

    /** The property that gives an instance Netty resources of its own ({@link OwnNettyResources}). */
    public static final String OWN_NETTY_RESOURCES = "queuegate-test.own-netty-resources";

    /**
     * Event loops and connection pools of this instance's own, for a test that stops one instance
     * while others of the same JVM go on: Reactor Netty's global resources, which Spring Boot
     * shares by default, are disposed with the first context that closes.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(OWN_NETTY_RESOURCES)
    static class OwnNettyResources {

        @Bean
        ReactorResourceFactory reactorResourceFactory() {
            ReactorResourceFactory factory = new ReactorResourceFactory();
            factory.setUseGlobalResources(false);
            return factory;
        }
    }
}
