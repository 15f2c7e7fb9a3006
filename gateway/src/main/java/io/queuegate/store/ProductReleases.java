package io.queuegate.store;

import java.time.Clock;
import java.time.Duration;

import io.queuegate.events.QueueEvents;
import io.queuegate.events.StockSource;
import io.queuegate.events.Trigger;
import io.queuegate.store.script.LeaveScript;

import reactor.core.publisher.Mono;

/**
 * How {@link ProductQueues} ends a place (a leave, a sale, the shop's word, an unknown product) and
 * refills it at once: one script call, what it did told to the {@link QueueEvents}, the product
 * marked due when it promoted, and the slot's event stream told when the script asks for it.
 */
final class ProductReleases {

    private final QueueScripts scripts;
    private final Clock clock;
    private final QueueEvents events;
    private final DueIndex due;
    private final SlotEventStream slotEvents;
    private final Duration idleTtl;
    private final RecoveringCalls recovering;

    ProductReleases(QueueScripts scripts, Clock clock, QueueEvents events, DueIndex due, SlotEventStream slotEvents,
            Duration idleTtl, RecoveringCalls recovering) {
        this.scripts = scripts;
        this.clock = clock;
        this.events = events;
        this.due = due;
        this.slotEvents = slotEvents;
        this.idleTtl = idleTtl;
        this.recovering = recovering;
    }

    /** A leave, on the shopper's or the shop's word: told as one when the user held a place. */
    Mono<Boolean> leave(String productId, String userId, LeaveScript.Ending ending) {
        return release(productId, userId, Trigger.LEAVE, false, ending).doOnNext(held -> {
            if (held) {
                events.left(productId, userId);
            }
        });
    }

    /**
     * @param drop whether the product, left with nobody in it, loses every key
     * @return whether the user held a place
     */
    Mono<Boolean> release(String productId, String userId, Trigger trigger, boolean drop,
            LeaveScript.Ending ending) {
        return recovering.call(productId, null, Mono.defer(() -> scripts.leave().run(productId, userId, clock.millis(),
                        drop, ending, idleTtl)))
                .flatMap(left -> {
                    if ((ending.shopSaid() || ending.sale() && left.held()) && left.stock() >= 0) {
                        events.stockChanged(productId, left.stock(),
                                ending.shopSaid() ? StockSource.SHOP : StockSource.SALE, left.soldOut());
                    }
                    events.promoted(productId, trigger, left.promoted());
                    events.abandoned(productId, trigger, left.abandoned());
                    if (left.promoted() > 0) {
                        due.mark(productId);
                    }
                    return left.toStream() ? slotEvents.append(productId).thenReturn(left.held())
                            : Mono.just(left.held());
                });
    }
}
