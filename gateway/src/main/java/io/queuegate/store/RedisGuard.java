package io.queuegate.store;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Every Redis call of QueueGate goes through here: bounded by {@code queuegate.redis.timeout},
 * so a hung TCP connection costs at most that, and behind the {@code queuegate} circuit breaker
 * where there is one ({@link RedisBreaker}), so while Redis is down requests fail at once instead
 * of each waiting out the timeout. The timeout sits inside the breaker, so timeouts count as
 * failures.
 *
 * <p>An outage that has ended costs nothing more: when Redis answers again after a reconnection
 * ({@link #reconnected()}) the breaker closes, and a call made before that which fails afterwards
 * (a command queued while disconnected that times out late) is not counted against Redis as it
 * is now.
 */
public final class RedisGuard {

    private final RedisBreaker breaker;
    private final Duration timeout;
    private final AtomicLong connections = new AtomicLong();

    public RedisGuard(RedisBreaker breaker, Duration timeout) {
        this.breaker = breaker;
        this.timeout = timeout;
    }

    public <T> Mono<T> guard(Mono<T> call) {
        return Mono.defer(() -> {
            Call permit = new Call(breaker.permit(), connections.get());
            return call.timeout(timeout)
                    .doOnSuccess(value -> permit.succeeded())
                    .doOnError(permit::failed)
                    .doOnCancel(permit::released);
        });
    }

    public <T> Flux<T> guard(Flux<T> call) {
        return Flux.defer(() -> {
            Call permit = new Call(breaker.permit(), connections.get());
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
        breaker.reset();
    }

    /** The breaker's state, for the health endpoint ({@code NONE} without one). */
    public String circuit() {
        return breaker.state();
    }

    /** A call's permit, which counts a failure only if it happened on the connection the call was made on. */
    private final class Call {

        private final RedisBreaker.Permit permit;
        private final long connection;

        Call(RedisBreaker.Permit permit, long connection) {
            this.permit = permit;
            this.connection = connection;
        }

        void succeeded() {
            permit.succeeded();
        }

        void failed(Throwable error) {
            if (connection == connections.get()) {
                permit.failed(error);
            }
            else {
                permit.released();
            }
        }

        void released() {
            permit.released();
        }
    }
}
