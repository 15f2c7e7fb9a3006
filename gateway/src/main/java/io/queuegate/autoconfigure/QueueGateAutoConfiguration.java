package io.queuegate.autoconfigure;

import io.queuegate.config.QueueGateProperties;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.cloud.gateway.config.GatewayAutoConfiguration;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/**
 * Installs QueueGate into a Spring Cloud Gateway application, one concern per configuration: the
 * queues in Redis, their recovery after Redis forgets, the caller's identity, the admission, this
 * instance's views of the lines, the admission's HTTP face, promotion, the server's protection, and
 * WebSocket upgrades on protected routes. Every bean backs off when the application defines its own;
 * {@code queuegate.enabled=false} turns it all off.
 */
@AutoConfiguration(after = { DataRedisReactiveAutoConfiguration.class, GatewayAutoConfiguration.class })
@ConditionalOnClass({ GlobalFilter.class, ReactiveStringRedisTemplate.class })
@ConditionalOnProperty(name = "queuegate.enabled", matchIfMissing = true)
@EnableConfigurationProperties(QueueGateProperties.class)
@Import({ StoreConfiguration.class, RecoveryConfiguration.class, IdentityConfiguration.class,
        AdmissionConfiguration.class, LineConfiguration.class, AdmissionWebConfiguration.class,
        PromotionConfiguration.class, ServerConfiguration.class, WebSocketConfiguration.class })
public class QueueGateAutoConfiguration {

    /** The name of QueueGate's circuit breaker instance. */
    public static final String BREAKER = StoreConfiguration.BREAKER;
}
