package io.queuegate.autoconfigure;

import io.queuegate.config.QueueGateProperties;
import io.queuegate.events.QueueEventHub;
import io.queuegate.promotion.KeyspaceNotifications;
import io.queuegate.promotion.PromotionListeners;
import io.queuegate.promotion.PromotionScheduler;
import io.queuegate.promotion.SlotAvailableListener;
import io.queuegate.promotion.SlotEventConsumer;
import io.queuegate.promotion.SlotExpiryListener;
import io.queuegate.routes.RouteQueuePolicies;
import io.queuegate.routes.RouteValidation;
import io.queuegate.store.DueIndex;
import io.queuegate.store.ProductQueues;
import io.queuegate.store.ProductRegistry;
import io.queuegate.store.SlotEventStream;
import io.queuegate.store.TimedProducts;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/**
 * How waiting users are promoted: the periodic passes, the listeners of the strategies the
 * routes use, and the route validation that starts those listeners.
 */
@Configuration(proxyBeanMethods = false)
class PromotionConfiguration {

    @Bean
    @ConditionalOnMissingBean
    PromotionScheduler promotionScheduler(ProductQueues queues, DueIndex due, ProductRegistry registry,
            TimedProducts timed, QueueEventHub events, QueueGateProperties properties) {
        return new PromotionScheduler(queues, due, registry, timed, events, properties.scheduler().interval(),
                properties.safetyNet().interval());
    }

    @Bean
    @ConditionalOnMissingBean
    SlotAvailableListener slotAvailableListener(ReactiveStringRedisTemplate redis, ProductQueues queues,
            QueueEventHub events) {
        return new SlotAvailableListener(redis, queues, events);
    }

    @Bean
    @ConditionalOnMissingBean
    SlotExpiryListener slotExpiryListener(ReactiveStringRedisTemplate redis, ProductQueues queues,
            QueueEventHub events) {
        return new SlotExpiryListener(redis, queues, events);
    }

    @Bean
    @ConditionalOnMissingBean
    KeyspaceNotifications keyspaceNotifications(ReactiveRedisConnectionFactory connections) {
        return new KeyspaceNotifications(connections);
    }

    @Bean
    @ConditionalOnMissingBean
    SlotEventConsumer slotEventConsumer(ReactiveRedisConnectionFactory connections, ProductQueues queues,
            SlotEventStream stream, QueueEventHub events, QueueGateProperties properties) {
        return new SlotEventConsumer(connections, queues, stream, events, properties.stream().claimIdle());
    }

    @Bean
    @ConditionalOnMissingBean
    PromotionListeners promotionListeners(SlotAvailableListener slotAvailable, SlotExpiryListener slotExpiry,
            KeyspaceNotifications keyspaceNotifications, SlotEventConsumer slotEvents) {
        return new PromotionListeners(slotAvailable, slotExpiry, keyspaceNotifications, slotEvents);
    }

    @Bean
    @ConditionalOnMissingBean
    RouteValidation queuegateRouteValidation(RouteLocator routeLocator, RouteQueuePolicies policies,
            QueueGateProperties properties, PromotionListeners listeners, Environment environment) {
        return new RouteValidation(routeLocator, policies, properties.products(), listeners, environment,
                properties.invites().configured());
    }
}
