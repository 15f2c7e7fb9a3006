package io.queuegate.autoconfigure;

import java.time.Clock;
import java.util.Set;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.MeterRegistry;
import io.queuegate.admission.Identifiers;
import io.queuegate.admission.QueueRejection;
import io.queuegate.autoconfigure.QueueGateAutoConfiguration;
import io.queuegate.config.QueueGateProperties;
import io.queuegate.console.ConsolePage;
import io.queuegate.console.QueueConsole;
import io.queuegate.console.QueueConsoleEndpoint;
import io.queuegate.events.QueueEventHub;
import io.queuegate.events.QueueEvents;
import io.queuegate.ops.AllowedHosts;
import io.queuegate.ops.AuditLog;
import io.queuegate.ops.OperationsExposureCheck;
import io.queuegate.ops.OperationsRequestGuard;
import io.queuegate.ops.ProductTags;
import io.queuegate.ops.QueueDirectory;
import io.queuegate.ops.QueueGateHealthIndicator;
import io.queuegate.ops.QueueGauges;
import io.queuegate.ops.QueueMetrics;
import io.queuegate.ops.QueuesEndpoint;
import io.queuegate.ops.WaitPercentiles;
import io.queuegate.routes.RouteQueuePolicies;
import io.queuegate.store.EvictionCheck;
import io.queuegate.store.ProductQueues;
import io.queuegate.store.ProductRegistry;
import io.queuegate.store.RedisGuard;

import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.web.server.ConditionalOnManagementPort;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.actuate.endpoint.web.WebEndpointsSupplier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/**
 * QueueGate's operations side: Micrometer metrics, the {@code queues} actuator endpoint, the
 * operator console and the audit log, all fed by the store's {@link QueueEventHub}. Every {@link QueueEvents} bean is
 * registered there, so an application can listen too.
 */
@AutoConfiguration(after = QueueGateAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass({ GlobalFilter.class, ReactiveStringRedisTemplate.class })
@ConditionalOnProperty(name = "queuegate.enabled", matchIfMissing = true)
@ConditionalOnBean(ProductQueues.class)
public class QueueGateOperationsAutoConfiguration {

    @Bean
    SmartInitializingSingleton queuegateEventListeners(QueueEventHub hub, ObjectProvider<QueueEvents> listeners) {
        // After every singleton exists, and so before any lifecycle starts a promotion loop. The
        // hub is a QueueEvents itself: it must not hand events to itself.
        return () -> listeners.orderedStream().filter(listener -> listener != hub).forEach(hub::register);
    }

    /** QueueGate's part of the health endpoint, where Spring Boot's health support is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.ReactiveHealthIndicator")
    static class Health {

        @Bean(name = "queuegate")
        @ConditionalOnMissingBean(QueueGateHealthIndicator.class)
        QueueGateHealthIndicator queuegateHealthIndicator(ProductQueues queues, RedisGuard guard, RouteLocator routes,
                RouteQueuePolicies policies, QueueGateProperties properties, ObjectProvider<EvictionCheck> eviction) {
            return new QueueGateHealthIndicator(queues, guard, routes, policies, properties.products(),
                    eviction.getIfAvailable());
        }
    }

    @Bean
    @ConditionalOnMissingBean
    AuditLog queuegateAuditLog() {
        return new AuditLog();
    }

    @Bean
    @ConditionalOnMissingBean
    QueueDirectory queueDirectory(ProductRegistry registry, ProductQueues queues, QueueGateProperties properties) {
        return new QueueDirectory(registry, queues, configuredProducts(properties), properties.metrics().maxProducts());
    }

    /** Product ids of {@code queuegate.products} that are valid ids (the others never reach Redis). */
    static Set<String> configuredProducts(QueueGateProperties properties) {
        return properties.products().keySet().stream()
                .filter(QueueGateOperationsAutoConfiguration::isProductId)
                .collect(Collectors.toSet());
    }

    private static boolean isProductId(String id) {
        try {
            Identifiers.requireProductId(id);
            return true;
        }
        catch (QueueRejection rejection) {
            return false;
        }
    }

    /** Meters, only where Micrometer has a registry. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    @ConditionalOnBean(MeterRegistry.class)
    static class Metrics {

        @Bean
        @ConditionalOnMissingBean
        ProductTags queuegateProductTags(QueueGateProperties properties) {
            return new ProductTags(properties.metrics().maxProducts(), configuredProducts(properties));
        }

        @Bean
        @ConditionalOnMissingBean
        QueueMetrics queueMetrics(MeterRegistry registry, ProductTags tags) {
            return new QueueMetrics(registry, tags);
        }

        @Bean
        @ConditionalOnMissingBean
        QueueGauges queueGauges(MeterRegistry registry, QueueDirectory directory, ProductQueues store, ProductTags tags,
                QueueGateProperties properties) {
            return new QueueGauges(registry, directory, store, tags, properties.metrics().refreshInterval());
        }
    }

    /** {@code /actuator/queues}, when the actuator is present and the endpoint is exposed. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Endpoint.class)
    static class Endpoints {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint
        QueuesEndpoint queuesEndpoint(ProductQueues queues, QueueDirectory directory, QueueEventHub events) {
            return new QueuesEndpoint(queues, directory, events);
        }

        /** In a shop's own gateway a public operations surface is only a warning (Spring Security may guard it). */
        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnClass(name = "org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType")
        OperationsExposureCheck queuegateOperationsExposureCheck(QueueGateProperties properties,
                org.springframework.core.env.Environment environment,
                ObjectProvider<org.springframework.boot.actuate.endpoint.web.WebEndpointsSupplier> webEndpoints,
                ObjectProvider<org.springframework.boot.actuate.endpoint.web.annotation.ControllerEndpointsSupplier> controllers,
                ObjectProvider<org.springframework.boot.actuate.endpoint.EndpointAccessResolver> access) {
            return new OperationsExposureCheck(OperationsExposureCheck.Mode.WARN,
                    properties.operations().allowPublicPort(), environment, webEndpoints, controllers, access);
        }

        /**
         * Refuses cross-site changes to the queues, and changes and the console under a name that is
         * not the gateway's own; serves the console page with its security headers. Here only where
         * the actuator shares the shopper port; where it has a port of its own, the guard lives in
         * that port's context ({@link OperationsGuardManagementConfiguration}) and shoppers' requests
         * never meet it.
         */
        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnManagementPort(ManagementPortType.SAME)
        OperationsRequestGuard queuegateOperationsRequestGuard(ObjectProvider<PathMappedEndpoints> endpoints,
                ObjectProvider<ConsolePage> console, QueueGateProperties properties) {
            return guard(endpoints, console, properties);
        }

        static OperationsRequestGuard guard(ObjectProvider<PathMappedEndpoints> endpoints,
                ObjectProvider<ConsolePage> console, QueueGateProperties properties) {
            return new OperationsRequestGuard(endpoints, console, AllowedHosts.of(properties.operations().allowedHosts()));
        }

        /** The console needs a management port of its own: shoppers must never reach it. */
        @Bean
        @ConditionalOnManagementPort(ManagementPortType.SAME)
        @ConditionalOnAvailableEndpoint(endpoint = QueueConsoleEndpoint.class)
        SmartInitializingSingleton queuegateConsoleNeedsManagementPort() {
            return () -> LogFactory.getLog(QueueConsoleEndpoint.class).warn("The queueconsole endpoint is exposed, "
                    + "but the actuator shares the shopper port: the console is served only on a management port of "
                    + "its own (management.server.port), so it is off");
        }
    }

    /** {@code /actuator/queueconsole}: only where it is exposed and the actuator has a port of its own. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Endpoint.class)
    @ConditionalOnManagementPort(ManagementPortType.DIFFERENT)
    @ConditionalOnAvailableEndpoint(endpoint = QueueConsoleEndpoint.class)
    static class Console {

        @Bean
        @ConditionalOnMissingBean
        ConsolePage queuegateConsolePage(QueueGateProperties properties) {
            return new ConsolePage(properties.console());
        }

        @Bean
        @ConditionalOnMissingBean
        QueueConsole queueConsole(ProductQueues queues, QueueDirectory directory, RouteQueuePolicies policies,
                ObjectProvider<MeterRegistry> registry, QueueGateProperties properties,
                ObjectProvider<WebEndpointsSupplier> webEndpoints, Clock queuegateClock) {
            MeterRegistry meters = registry.getIfAvailable();
            return new QueueConsole(queues, directory, policies,
                    meters == null ? WaitPercentiles.NONE : new WaitPercentiles(meters), properties.console(),
                    () -> queuesTakeActions(webEndpoints.getIfAvailable()), queuegateClock);
        }

        @Bean
        @ConditionalOnMissingBean
        QueueConsoleEndpoint queueConsoleEndpoint(ConsolePage page, QueueConsole console) {
            return new QueueConsoleEndpoint(page, console);
        }

        /**
         * Whether the {@code queues} endpoint is exposed with its write operation: Spring Boot
         * leaves the operation out where its access is {@code read-only} (or {@code none}).
         */
        static boolean queuesTakeActions(WebEndpointsSupplier endpoints) {
            EndpointId queues = EndpointId.of("queues");
            return endpoints != null && endpoints.getEndpoints().stream()
                    .filter(endpoint -> queues.equals(endpoint.getEndpointId()))
                    .anyMatch(endpoint -> endpoint.getOperations().stream()
                            .anyMatch(operation -> operation.getType() == OperationType.WRITE));
        }
    }
}
