package io.queuegate.store;

/**
 * What makes Redis calls fail at once while Redis is down, instead of each waiting out the
 * timeout: Resilience4j's circuit breaker where the application has Resilience4j
 * ({@link Resilience4jBreaker}), else {@link #NONE}, and each call is bounded by the timeout alone.
 */
public interface RedisBreaker {

    /** No breaker: every call goes to Redis, bounded by the timeout. */
    RedisBreaker NONE = new RedisBreaker() {

        @Override
        public Permit permit() {
            return Permit.NOTHING;
        }

        @Override
        public void reset() {
        }

        @Override
        public String state() {
            return "NONE";
        }
    };

    /**
     * Leave for one call.
     *
     * @throws CircuitOpen when no call may go to Redis now
     */
    Permit permit();

    /** Redis answers again after a reconnection: whatever failed before says nothing of it now. */
    void reset();

    /** The breaker's state for the health endpoint: {@code CLOSED}, {@code OPEN}, ..., or {@code NONE}. */
    String state();

    /** One call's leave, told once how the call ended. */
    interface Permit {

        Permit NOTHING = new Permit() {
            @Override
            public void succeeded() {
            }

            @Override
            public void failed(Throwable error) {
            }

            @Override
            public void released() {
            }
        };

        void succeeded();

        void failed(Throwable error);

        /** The call ended in a way that says nothing about Redis (cancelled, or failed before a reconnection). */
        void released();
    }

    /** Redis is not asked while its circuit is open: a Redis failure, answered at once. */
    final class CircuitOpen extends RuntimeException {

        public CircuitOpen(Throwable cause) {
            super("QueueGate's circuit breaker for Redis is open", cause, false, false);
        }
    }
}
