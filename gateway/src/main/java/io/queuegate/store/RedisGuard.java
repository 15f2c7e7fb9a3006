package io.queuegate.store;

import java.time.Duration;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.reactor.circuitbreaker.operator.CircuitBreakerOperator;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Every Redis call of QueueGate goes through here: bounded by {@code queuegate.redis.timeout},
 * so a hung TCP connection costs at most that, and behind the {@code queuegate} circuit breaker,
 * so while Redis is down requests fail at once instead of each waiting out the timeout. The
 * timeout sits inside the breaker, so timeouts count as failures.
 */
public final class RedisGuard {

    private final CircuitBreaker breaker;
    private final Duration timeout;

    public RedisGuard(CircuitBreaker breaker, Duration timeout) {
        this.breaker = breaker;
        this.timeout = timeout;
    }

    public <T> Mono<T> guard(Mono<T> call) {
        return call.timeout(timeout).transformDeferred(CircuitBreakerOperator.of(breaker));
    }

    public <T> Flux<T> guard(Flux<T> call) {
        return call.timeout(timeout).transformDeferred(CircuitBreakerOperator.of(breaker));
    }

    public CircuitBreaker breaker() {
        return breaker;
    }
}
