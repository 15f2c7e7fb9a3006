package io.queuegate.events;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Hands every {@link QueueEvents} call to the registered listeners. A listener that throws is
 * logged and skipped: counting or logging must never fail a shopper's request.
 */
public final class QueueEventHub implements QueueEvents {

    private static final Log log = LogFactory.getLog(QueueEventHub.class);

    // Registered once at startup and read on every event: copy-on-write costs nothing per event.
    private final List<QueueEvents> listeners = new CopyOnWriteArrayList<>();

    public void register(QueueEvents listener) {
        listeners.add(listener);
    }

    private void each(Consumer<QueueEvents> call) {
        for (QueueEvents listener : listeners) {
            try {
                call.accept(listener);
            }
            catch (RuntimeException ex) {
                log.warn("A queue event listener failed: " + ex);
            }
        }
    }

    @Override
    public void joined(String productId, String routeId, String userId, long rank) {
        each(l -> l.joined(productId, routeId, userId, rank));
    }

    @Override
    public void promoted(String productId, Trigger trigger, long promoted) {
        if (promoted > 0) {
            each(l -> l.promoted(productId, trigger, promoted));
        }
    }

    @Override
    public void abandoned(String productId, Trigger trigger, long abandoned) {
        if (abandoned > 0) {
            each(l -> l.abandoned(productId, trigger, abandoned));
        }
    }

    @Override
    public void admitted(String productId, String routeId, String userId, Duration waited) {
        each(l -> l.admitted(productId, routeId, userId, waited));
    }

    @Override
    public void session(String productId, String userId, long endsAt) {
        each(l -> l.session(productId, userId, endsAt));
    }

    @Override
    public void recovered(String productId, long floor) {
        each(l -> l.recovered(productId, floor));
    }

    @Override
    public void completed(String productId, String routeId, String userId) {
        each(l -> l.completed(productId, routeId, userId));
    }

    @Override
    public void left(String productId, String userId) {
        each(l -> l.left(productId, userId));
    }

    @Override
    public void expired(String productId, String userId) {
        each(l -> l.expired(productId, userId));
    }

    @Override
    public void redisFailure(String productId, RedisOperation operation, Throwable error) {
        each(l -> l.redisFailure(productId, operation, error));
    }

    @Override
    public void failOpenPass(String productId, String routeId) {
        each(l -> l.failOpenPass(productId, routeId));
    }

    @Override
    public void rejected(String routeId, String code) {
        each(l -> l.rejected(routeId, code));
    }

    @Override
    public void decided(String routeId, Decision outcome, Duration took) {
        each(l -> l.decided(routeId, outcome, took));
    }

    @Override
    public void stockChanged(String productId, long unitsLeft, StockSource by, boolean soldOut) {
        each(l -> l.stockChanged(productId, unitsLeft, by, soldOut));
    }

    @Override
    public void operatorAction(String productId, String action, String value, long promoted) {
        operatorAction(productId, action, value, promoted, null);
    }

    @Override
    public void operatorAction(String productId, String action, String value, long promoted, String actor) {
        each(l -> l.operatorAction(productId, action, value, promoted, actor));
    }
}
