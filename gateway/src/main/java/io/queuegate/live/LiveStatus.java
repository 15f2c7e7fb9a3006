package io.queuegate.live;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.queuegate.admission.Caller;
import io.queuegate.admission.WaitEstimate;
import io.queuegate.store.Placement;
import io.queuegate.store.ProductQueues;

import org.springframework.http.codec.ServerSentEvent;

import reactor.core.publisher.Flux;

/**
 * The stream behind {@code GET /queue/{productId}/events}: the caller's place now, then a new
 * place each time admissions move the line (counted down locally from the announcements, no
 * Redis read), a real re-read every heartbeat (which also catches people ahead who left), and
 * {@code admitted} the moment the caller is let in, after which the stream ends.
 */
public class LiveStatus {

    /** Also keeps proxies from closing an idle connection. */
    public static final Duration HEARTBEAT = Duration.ofSeconds(15);

    private final ProductQueues store;
    private final AdmissionNotifier notifier;
    private final Duration heartbeat;

    public LiveStatus(ProductQueues store, AdmissionNotifier notifier, Duration heartbeat) {
        this.store = store;
        this.notifier = notifier;
        this.heartbeat = heartbeat;
    }

    public Flux<ServerSentEvent<Update>> events(Caller caller) {
        AtomicLong rank = new AtomicLong();
        AtomicReference<Double> rate = new AtomicReference<>(0.0);
        // In a sale's pre-queue no rank exists to count down: places are drawn at opening.
        AtomicBoolean preQueued = new AtomicBoolean();
        // Subscribing to announcements before the first read, so no admission falls in between.
        Flux<Update> admitted = notifier.admissions(caller.productId())
                .map(users -> {
                    if (users.contains(caller.userId())) {
                        return Update.admitted();
                    }
                    if (preQueued.get()) {
                        return Update.PRE_QUEUE;
                    }
                    long now = rank.updateAndGet(r -> Math.max(1, r - users.size()));
                    return Update.waiting(now, WaitEstimate.seconds(now, rate.get()));
                });
        Flux<Update> reads = Flux.interval(Duration.ZERO, heartbeat)
                .concatMap(tick -> store.status(caller.productId(), caller.userId())
                        .map(status -> status.placement())
                        .doOnNext(placement -> {
                            rank.set(placement.rank());
                            preQueued.set(placement.state() == Placement.State.PRE_QUEUE);
                            rate.set(placement.admissionRate());
                        })
                        .map(Update::of), 1);
        return Flux.merge(admitted, reads)
                .takeUntil(update -> !update.isWaiting())
                .map(update -> ServerSentEvent.builder(update)
                        .event(update.isWaiting() ? "status" : update.status().toLowerCase())
                        .build());
    }

    /**
     * One event's data.
     *
     * @param status {@code WAITING}, {@code PRE_QUEUE} (a sale not yet open), {@code ACTIVE}
     *               (admitted) or {@code NOT_FOUND}
     * @param rank 1-based place while waiting
     * @param estimatedWaitSeconds while waiting and once a rate is known
     */
    public record Update(String status, Long rank, Long estimatedWaitSeconds) {

        static final Update PRE_QUEUE = new Update("PRE_QUEUE", null, null);

        boolean isWaiting() {
            return "WAITING".equals(status) || "PRE_QUEUE".equals(status);
        }

        static Update admitted() {
            return new Update("ACTIVE", null, null);
        }

        static Update waiting(long rank, Long estimate) {
            return new Update("WAITING", rank, estimate);
        }

        static Update of(Placement placement) {
            if (placement.state() == Placement.State.PRE_QUEUE) {
                return PRE_QUEUE;
            }
            if (placement.state() == Placement.State.WAITING) {
                return waiting(placement.rank(), WaitEstimate.seconds(placement.rank(), placement.admissionRate()));
            }
            return new Update(placement.state() == Placement.State.ACTIVE ? "ACTIVE" : "NOT_FOUND", null, null);
        }
    }
}
