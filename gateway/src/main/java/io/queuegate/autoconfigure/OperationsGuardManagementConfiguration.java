package io.queuegate.autoconfigure;

import io.queuegate.config.QueueGateProperties;
import io.queuegate.console.ConsolePage;
import io.queuegate.ops.OperationsRequestGuard;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * The operations guard on a management port of its own: a filter of that port's context only, so
 * a shopper's request on the other port does not pass through it (the application context's web
 * filters reach the management port too, never the other way round).
 */
@ManagementContextConfiguration(value = ManagementContextType.CHILD, proxyBeanMethods = false)
@ConditionalOnProperty(name = "queuegate.enabled", matchIfMissing = true)
@ConditionalOnBean(QueueGateProperties.class)
class OperationsGuardManagementConfiguration {

    @Bean
    @ConditionalOnMissingBean
    OperationsRequestGuard queuegateOperationsRequestGuard(ObjectProvider<PathMappedEndpoints> endpoints,
            ObjectProvider<ConsolePage> console, QueueGateProperties properties) {
        return QueueGateOperationsAutoConfiguration.Endpoints.guard(endpoints, console, properties);
    }
}
