package io.queuegate.store;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;

/** Resilience4j's circuit breaker as QueueGate's {@link RedisBreaker}: the only class that needs Resilience4j. */
public final class Resilience4jBreaker implements RedisBreaker {

    private final CircuitBreaker breaker;

    public Resilience4jBreaker(CircuitBreaker breaker) {
        this.breaker = breaker;
    }

    @Override
    public Permit permit() {
        if (!breaker.tryAcquirePermission()) {
            throw new CircuitOpen(CallNotPermittedException.createCallNotPermittedException(breaker));
        }
        return new Call(breaker.getCurrentTimestamp());
    }

    @Override
    public void reset() {
        CircuitBreaker.State state = breaker.getState();
        if (state != CircuitBreaker.State.CLOSED && state != CircuitBreaker.State.DISABLED
                && state != CircuitBreaker.State.FORCED_OPEN) {
            breaker.transitionToClosedState();
        }
    }

    @Override
    public String state() {
        return breaker.getState().name();
    }

    /** One call's permission, recorded once when the call ends. */
    private final class Call implements Permit {

        private final long start;
        private boolean done;

        Call(long start) {
            this.start = start;
        }

        @Override
        public synchronized void succeeded() {
            if (!done) {
                done = true;
                breaker.onSuccess(breaker.getCurrentTimestamp() - start, breaker.getTimestampUnit());
            }
        }

        @Override
        public synchronized void failed(Throwable error) {
            if (!done) {
                done = true;
                breaker.onError(breaker.getCurrentTimestamp() - start, breaker.getTimestampUnit(), error);
            }
        }

        @Override
        public synchronized void released() {
            if (!done) {
                done = true;
                breaker.releasePermission();
            }
        }
    }
}
