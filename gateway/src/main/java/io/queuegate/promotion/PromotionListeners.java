package io.queuegate.promotion;

import java.util.Set;

import io.queuegate.config.Promotion;

import reactor.core.publisher.Mono;

/**
 * Starts the Redis subscriptions that the configured routes' strategies need, and only those:
 * a gateway without keyspace routes never listens to every expiry of a shared Redis.
 */
public class PromotionListeners {

    private final SlotAvailableListener slotAvailable;
    private final SlotExpiryListener slotExpiry;
    private final KeyspaceNotifications keyspaceNotifications;
    private final SlotEventConsumer slotEvents;

    public PromotionListeners(SlotAvailableListener slotAvailable, SlotExpiryListener slotExpiry,
            KeyspaceNotifications keyspaceNotifications, SlotEventConsumer slotEvents) {
        this.slotAvailable = slotAvailable;
        this.slotExpiry = slotExpiry;
        this.keyspaceNotifications = keyspaceNotifications;
        this.slotEvents = slotEvents;
    }

    /** Starts the listeners of these strategies; the returned Mono completes once checks are done. */
    public Mono<Void> startFor(Set<Promotion> strategies) {
        if (strategies.contains(Promotion.PUBSUB)) {
            slotAvailable.start();
        }
        if (strategies.contains(Promotion.STREAM)) {
            slotEvents.start();
        }
        if (strategies.contains(Promotion.KEYSPACE)) {
            slotExpiry.start();
            return keyspaceNotifications.ensureExpiryEvents().then();
        }
        return Mono.empty();
    }

    public void stopAll() {
        slotAvailable.stop();
        slotExpiry.stop();
        slotEvents.stop();
    }
}
