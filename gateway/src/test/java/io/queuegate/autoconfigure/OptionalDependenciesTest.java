package io.queuegate.autoconfigure;

import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.queuegate.ops.QueueGateHealthIndicator;
import io.queuegate.ops.QueueMetrics;
import io.queuegate.ops.QueuesEndpoint;
import io.queuegate.store.RedisBreaker;
import io.queuegate.store.RedisGuard;
import io.queuegate.store.Resilience4jBreaker;
import io.queuegate.web.QueueAdmissionFilter;

import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.cloud.gateway.route.RouteLocator;

import reactor.core.publisher.Flux;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The library's actuator, Micrometer and Resilience4j dependencies are optional: a shop's gateway
 * without them gets the waiting room, and only what needs them backs off (the health contributor,
 * the endpoints, the meters; the circuit breaker, where the Redis timeout alone stands in).
 */
class OptionalDependenciesTest {

    private static final String SECRET = "queuegate.token.secret=a-secret-that-is-long-enough-for-hs256-01234";

    private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
                    DataRedisReactiveAutoConfiguration.class, QueueGateAutoConfiguration.class,
                    QueueGateOperationsAutoConfiguration.class))
            .withBean(RouteLocator.class, () -> () -> Flux.empty())
            .withPropertyValues(SECRET, "management.endpoints.web.exposure.include=health,queues");

    @Test
    void withEverythingPresentTheBreakerGuardsRedisAndTheOperationsSideIsThere() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(QueueAdmissionFilter.class)
                    .hasSingleBean(QueueGateHealthIndicator.class).hasSingleBean(QueueMetrics.class)
                    .hasSingleBean(QueuesEndpoint.class).getBean(RedisBreaker.class)
                    .isInstanceOf(Resilience4jBreaker.class);
            assertThat(context.getBean(RedisGuard.class).circuit()).isEqualTo("CLOSED");
        });
    }

    @Test
    void withoutResilience4jTheTimeoutAloneGuardsRedis() {
        runner.withClassLoader(new FilteredClassLoader(CircuitBreakerRegistry.class)).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(QueueAdmissionFilter.class)
                    .doesNotHaveBean(RedisBreaker.class);
            assertThat(context.getBean(RedisGuard.class).circuit()).isEqualTo("NONE");
        });
    }

    @Test
    void withoutTheActuatorOrMicrometerTheWaitingRoomStillStarts() {
        runner.withClassLoader(new FilteredClassLoader(Endpoint.class, ReactiveHealthIndicator.class,
                MeterRegistry.class, CircuitBreakerRegistry.class)).run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(QueueAdmissionFilter.class)
                            .doesNotHaveBean(QueueGateHealthIndicator.class).doesNotHaveBean(QueueMetrics.class)
                            .doesNotHaveBean(QueuesEndpoint.class);
                });
    }
}
