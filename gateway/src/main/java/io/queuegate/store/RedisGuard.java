package io.queuegate.store;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Every Redis call of QueueGate goes through here: bounded by {@code queuegate.redis.timeout},
 * so a hung TCP connection costs at most that, and behind the {@code queuegate} circuit breaker,
 * so while Redis is down requests fail at once instead of each waiting out the timeout. The
 * timeout sits inside the breaker, so timeouts count as failures.
 *
 * <p>An outage that has ended costs nothing more: when Redis answers again after a reconnection
 * ({@link #reconnected()}) the breaker closes, and a call made before that which fails afterwards
 * (a command queued while disconnected that times out late) is not counted against Redis as it
 * is now.
 */
public final class RedisGuard {

    private final CircuitBreaker breaker;
    private final Duration timeout;
    private final AtomicLong connections = new AtomicLong();

    public RedisGuard(CircuitBreaker breaker, Duration timeout) {
        this.breaker = breaker;
        this.timeout = timeout;
    }

    public <T> Mono<T> guard(Mono<T> call) {
        return Mono.defer(() -> {
            Permit permit = permit();
            return call.timeout(timeout)
                    .doOnSuccess(value -> permit.succeeded())
                    .doOnError(permit::failed)
                    .doOnCancel(permit::released);
        });
    }

    public <T> Flux<T> guard(Flux<T> call) {
        return Flux.defer(() -> {
            Permit permit = permit();
            return call.timeout(timeout)
                    .doOnComplete(permit::succeeded)
                    .doOnError(permit::failed)
                    .doOnCancel(permit::released);
        });
    }

    /**
     * Redis answers again after its connection was lost: whatever failed while it was down says
     * nothing about Redis now, so the breaker closes and calls made before this moment no longer
     * count.
     */
    public void reconnected() {
        connections.incrementAndGet();
        if (breaker.getState() != CircuitBreaker.State.CLOSED && breaker.getState() != CircuitBreaker.State.DISABLED
                && breaker.getState() != CircuitBreaker.State.FORCED_OPEN) {
            breaker.transitionToClosedState();
        }
    }

    public CircuitBreaker breaker() {
        return breaker;
    }

    private Permit permit() {
        if (!breaker.tryAcquirePermission()) {
            throw CallNotPermittedException.createCallNotPermittedException(breaker);
        }
        return new Permit(connections.get(), breaker.getCurrentTimestamp());
    }

    /** One call's permission from the breaker, recorded once when the call ends. */
    private final class Permit {

        private final long connection;
        private final long start;
        private boolean done;

        Permit(long connection, long start) {
            this.connection = connection;
            this.start = start;
        }

        synchronized void succeeded() {
            if (!done) {
                done = true;
                breaker.onSuccess(breaker.getCurrentTimestamp() - start, breaker.getTimestampUnit());
            }
        }

        synchronized void failed(Throwable error) {
            if (!done) {
                done = true;
                if (connection == connections.get()) {
                    breaker.onError(breaker.getCurrentTimestamp() - start, breaker.getTimestampUnit(), error);
                }
                else {
                    breaker.releasePermission();
                }
            }
        }

        synchronized void released() {
            if (!done) {
                done = true;
                breaker.releasePermission();
            }
        }
    }
}
