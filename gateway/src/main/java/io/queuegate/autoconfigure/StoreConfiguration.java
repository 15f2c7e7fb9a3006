package io.queuegate.autoconfigure;

import java.time.Clock;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.queuegate.config.QueueGateProperties;
import io.queuegate.events.QueueEventHub;
import io.queuegate.store.DueIndex;
import io.queuegate.store.ProductQueues;
import io.queuegate.store.ProductRegistry;
import io.queuegate.store.QueueScripts;
import io.queuegate.store.RedisGuard;
import io.queuegate.store.ScriptRunner;
import io.queuegate.store.SlotEventStream;
import io.queuegate.store.TimedProducts;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/** The queues in Redis: the guard every call goes through, the scripts, and the stores built on them. */
@Configuration(proxyBeanMethods = false)
class StoreConfiguration {

    static final String BREAKER = "queuegate";

    @Bean
    @ConditionalOnMissingBean(name = "queuegateClock")
    Clock queuegateClock() {
        return Clock.systemUTC();
    }

    /** Where queue events go: metrics, the audit log and an application's own listeners register here. */
    @Bean
    @ConditionalOnMissingBean
    QueueEventHub queueEventHub() {
        return new QueueEventHub();
    }

    /**
     * The breaker named {@code queuegate}, configured the Resilience4j way under
     * {@code resilience4j.circuitbreaker.instances.queuegate}; Resilience4j's defaults apply when
     * the application has no registry of its own.
     */
    @Bean
    @ConditionalOnMissingBean
    RedisGuard redisGuard(ObjectProvider<CircuitBreakerRegistry> registry, QueueGateProperties properties) {
        CircuitBreaker breaker = registry.getIfAvailable(CircuitBreakerRegistry::ofDefaults).circuitBreaker(BREAKER);
        return new RedisGuard(breaker, properties.redis().timeout());
    }

    @Bean
    @ConditionalOnMissingBean
    ScriptRunner queuegateScriptRunner(ReactiveStringRedisTemplate redis, RedisGuard guard) {
        return new ScriptRunner(redis, guard);
    }

    @Bean
    @ConditionalOnMissingBean
    QueueScripts queueScripts(ScriptRunner runner) {
        return new QueueScripts(runner);
    }

    @Bean
    @ConditionalOnMissingBean
    DueIndex queuegateDueIndex(ReactiveStringRedisTemplate redis, RedisGuard guard, QueueScripts scripts,
            Clock queuegateClock) {
        return new DueIndex(redis, guard, scripts, queuegateClock);
    }

    @Bean
    @ConditionalOnMissingBean
    ProductRegistry queuegateProductRegistry(ReactiveStringRedisTemplate redis, RedisGuard guard,
            QueueScripts scripts, Clock queuegateClock) {
        return new ProductRegistry(redis, guard, scripts, queuegateClock);
    }

    @Bean
    @ConditionalOnMissingBean
    TimedProducts queuegateTimedProducts() {
        return new TimedProducts();
    }

    @Bean
    @ConditionalOnMissingBean
    SlotEventStream queuegateSlotEventStream(ReactiveStringRedisTemplate redis, RedisGuard guard, QueueScripts scripts,
            QueueGateProperties properties) {
        return new SlotEventStream(redis, guard, scripts, properties.stream().maxLength());
    }

    @Bean
    @ConditionalOnMissingBean
    ProductQueues productQueues(ReactiveStringRedisTemplate redis, RedisGuard guard, QueueScripts scripts,
            Clock queuegateClock, QueueEventHub events, DueIndex due, ProductRegistry registry, TimedProducts timed,
            SlotEventStream slotEvents, QueueGateProperties properties) {
        return new ProductQueues(redis, guard, scripts, queuegateClock, events, due, registry, timed, slotEvents,
                properties.token().ttl());
    }
}
