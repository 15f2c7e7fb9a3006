package io.queuegate.app;

import io.queuegate.ops.OperationsExposureCheck;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.web.WebEndpointsSupplier;
import org.springframework.boot.actuate.endpoint.web.annotation.ControllerEndpointsSupplier;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.security.autoconfigure.ReactiveUserDetailsServiceAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The runnable QueueGate gateway: Spring Cloud Gateway with QueueGate's auto-configuration,
 * Spring Security for the shopper's identity and the operator's login, and configuration that
 * keeps the operations surface off the shopper port. Shoppers never sign in to the gateway, so
 * Spring Boot's default user (which its auto-configuration would offer every chain) is left out;
 * {@link ManagementPortSecurity} makes the operator's, for the management port alone.
 */
@SpringBootApplication(exclude = ReactiveUserDetailsServiceAutoConfiguration.class)
public class QueueGateApplication {

    public static void main(String[] args) {
        SpringApplication.run(QueueGateApplication.class, args);
    }

    /**
     * Here, unlike in a shop's own gateway, a public operations surface stops the start: this
     * configuration is ours, and nothing in front of the shopper port guards it.
     */
    @Bean
    OperationsExposureCheck queuegateOperationsExposureCheck(Environment environment,
            ObjectProvider<WebEndpointsSupplier> webEndpoints, ObjectProvider<ControllerEndpointsSupplier> controllers,
            ObjectProvider<EndpointAccessResolver> access) {
        // Read from the environment, not from QueueGate's properties: with queuegate.enabled=false
        // there are none, and a writable gateway endpoint on the shopper port is still refused.
        boolean allowPublicPort = Binder.get(environment).bind("queuegate.operations.allow-public-port", Boolean.class)
                .orElse(false);
        return new OperationsExposureCheck(OperationsExposureCheck.Mode.FAIL, allowPublicPort, environment, webEndpoints,
                controllers, access);
    }
}
