package io.queuegate.autoconfigure;

import java.time.Clock;
import java.time.Duration;

import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.queuegate.config.QueueGateProperties;
import io.queuegate.events.QueueEventHub;
import io.queuegate.store.Channels;
import io.queuegate.store.DrawSeeds;
import io.queuegate.store.DueIndex;
import io.queuegate.store.EvictionCheck;
import io.queuegate.store.ProductQueues;
import io.queuegate.store.ProductRecovery;
import io.queuegate.store.ProductRegistry;
import io.queuegate.store.QueueScripts;
import io.queuegate.store.RedisConnectionEvents;
import io.queuegate.store.RedisEpoch;
import io.queuegate.store.RedisBreaker;
import io.queuegate.store.RedisGuard;
import io.queuegate.store.Resilience4jBreaker;
import io.queuegate.store.ScriptRunner;
import io.queuegate.store.SlotEventStream;
import io.queuegate.store.TimedProducts;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/**
 * The queues in Redis: the guard every call goes through, the epoch of the data every script is
 * given, the scripts, and the stores built on them.
 */
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
     * Every Redis call bounded by {@code queuegate.redis.timeout}, behind the circuit breaker where
     * the application has Resilience4j ({@link Resilience4j}); without it, the timeout alone bounds
     * each call while Redis is down.
     */
    @Bean
    @ConditionalOnMissingBean
    RedisGuard redisGuard(ObjectProvider<RedisBreaker> breaker, QueueGateProperties properties) {
        return new RedisGuard(breaker.getIfAvailable(() -> RedisBreaker.NONE), properties.redis().timeout());
    }

    /**
     * The breaker named {@code queuegate}, configured the Resilience4j way under
     * {@code resilience4j.circuitbreaker.instances.queuegate}; Resilience4j's defaults apply when
     * the application has no registry of its own.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry")
    static class Resilience4j {

        @Bean
        @ConditionalOnMissingBean
        RedisBreaker queuegateRedisBreaker(ObjectProvider<CircuitBreakerRegistry> registry) {
            return new Resilience4jBreaker(registry.getIfAvailable(CircuitBreakerRegistry::ofDefaults).circuitBreaker(BREAKER));
        }
    }

    /** The instance's Pub/Sub subscriptions: one per channel pattern, shared by its listeners. */
    @Bean
    @ConditionalOnMissingBean
    Channels queuegateChannels(ReactiveStringRedisTemplate redis) {
        return new Channels(redis);
    }

    @Bean
    @ConditionalOnMissingBean
    RedisEpoch queuegateRedisEpoch(ReactiveStringRedisTemplate redis, Clock queuegateClock,
            QueueGateProperties properties) {
        return new RedisEpoch(redis, queuegateClock, properties.recovery().window());
    }

    /** Lettuce's connection events, where Boot made the client's resources (as it does by default). */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(ClientResources.class)
    RedisConnectionEvents queuegateRedisConnectionEvents(ClientResources resources, RedisEpoch epoch,
            RedisGuard guard) {
        return new RedisConnectionEvents(resources, epoch, guard);
    }

    /** Checked when the gateway is ready and for every new epoch (another server, or the same restarted). */
    @Bean
    @ConditionalOnMissingBean
    EvictionCheck queuegateEvictionCheck(ReactiveStringRedisTemplate redis, RedisEpoch epoch) {
        EvictionCheck check = new EvictionCheck(redis);
        epoch.onChange(current -> check.check().subscribe(verdict -> {
        }, error -> {
        }));
        return check;
    }

    @Bean
    ApplicationListener<ApplicationReadyEvent> queuegateFirstEvictionCheck(EvictionCheck check) {
        // Not on the way to readiness: a Redis that is down at startup is checked with the next epoch.
        return event -> check.check().subscribe(verdict -> {
        }, error -> {
        });
    }

    @Bean
    @ConditionalOnMissingBean
    ScriptRunner queuegateScriptRunner(ReactiveStringRedisTemplate redis, RedisGuard guard, RedisEpoch epoch) {
        return new ScriptRunner(redis, guard, epoch);
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
            SlotEventStream slotEvents, QueueGateProperties properties, ProductRecovery recovery, DrawSeeds drawSeeds) {
        return new ProductQueues(redis, guard, scripts, queuegateClock, events, due, registry, timed, slotEvents,
                properties.token().ttl(), recovery, drawSeeds, properties.products().keySet());
    }

    /** The sales' draw seeds, derived from the token secret so a draw can be worked out again after a loss. */
    @Bean
    @ConditionalOnMissingBean
    DrawSeeds queuegateDrawSeeds(QueueGateProperties properties) {
        return new DrawSeeds(properties.token().secret(), properties.token().previousSecrets());
    }

    /**
     * {@code queuegate.redis.fail-fast-when-disconnected}: a command made while the connection is
     * down fails at once rather than waiting for the reconnection and timing out afterwards (when
     * it would count against a Redis that is back), and the client reconnects at least once a
     * second, so every instance is back soon after Redis is. Off unless asked for: it changes the
     * application's own Redis client.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "queuegate.redis.fail-fast-when-disconnected", havingValue = "true")
    static class FailFastWhenDisconnected {

        @Bean
        LettuceClientOptionsBuilderCustomizer queuegateRejectWhileDisconnected() {
            return options -> options.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
        }

        @Bean
        ClientResourcesBuilderCustomizer queuegateReconnectEverySecond() {
            return resources -> resources.reconnectDelay(Delay.equalJitter(Duration.ofMillis(50),
                    Duration.ofSeconds(1), 2, java.util.concurrent.TimeUnit.MILLISECONDS));
        }
    }
}
