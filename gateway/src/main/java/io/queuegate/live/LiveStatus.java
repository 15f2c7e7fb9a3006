package io.queuegate.live;

import java.time.Duration;

import io.queuegate.admission.Caller;
import io.queuegate.admission.WaitEstimate;
import io.queuegate.line.LocalAnswers;
import io.queuegate.line.LocalStanding;
import io.queuegate.recovery.Reclaims;
import io.queuegate.room.Placement;
import io.queuegate.store.ProductQueues;
import io.queuegate.room.Stock;
import io.queuegate.token.WaitTokenCodec;

import org.springframework.context.SmartLifecycle;
import org.springframework.http.codec.ServerSentEvent;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The stream behind {@code GET /queue/{productId}/events}: the caller's place now, a new place
 * when it changes (looked up every {@link #LOOK_EVERY} in this instance's view of the line, no
 * Redis call), the same place again every heartbeat (which keeps proxies from closing an idle
 * connection), and {@code active} the moment the caller's admission is announced, after which the
 * stream ends. The caller counts as seen (abandon-after) every quarter abandon-after, in the
 * instance's batched marks. Redis is asked only when the view cannot answer: at the next look
 * when the shopper's turn may have come (the head reached the ticket, or admissions heard of since
 * the view was read could have reached it), else (no ticket in the token yet, no fresh view) at
 * most once a heartbeat. When the caller's token
 * is due to be signed again the stream ends with {@code renew}: the page reloads through the
 * gateway, which signs it.
 */
public class LiveStatus implements SmartLifecycle {

    /** How often a stream looks at the view of the line for a new place: rank changes show within this. */
    static final Duration LOOK_EVERY = Duration.ofSeconds(1);

    private final ProductQueues store;
    private final AdmissionNotifier notifier;
    private final LocalAnswers local;
    private final WaitTokenCodec tokens;
    private final Reclaims reclaims;
    private final Duration heartbeat;
    // One timer for every stream: a stream that cannot take a look right now misses it, never delays the others.
    private final Sinks.Many<Long> looks = Sinks.many().multicast().directBestEffort();
    private volatile Disposable ticker;

    /** @param reclaims which tokens were signed before Redis forgot (their pages ask for a fresh one) */
    public LiveStatus(ProductQueues store, AdmissionNotifier notifier, LocalAnswers local, WaitTokenCodec tokens,
            Reclaims reclaims, Duration heartbeat) {
        this.store = store;
        this.notifier = notifier;
        this.local = local;
        this.tokens = tokens;
        this.reclaims = reclaims;
        this.heartbeat = heartbeat;
    }

    public Flux<ServerSentEvent<Update>> events(Caller caller) {
        Stream stream = new Stream(caller);
        // Watching for the admission before the first look, so none falls in between.
        Flux<Update> admitted = notifier.admission(caller.productId(), caller.userId()).thenReturn(Update.ACTIVE).flux();
        Flux<Update> updates = Flux.concat(Mono.just(0L), looks.asFlux()).concatMap(tick -> stream.look(), 1);
        return Flux.merge(admitted, updates)
                .takeUntil(update -> !update.isWaiting())
                .map(update -> ServerSentEvent.builder(update).event(update.event()).build());
    }

    @Override
    public void start() {
        ticker = Flux.interval(LOOK_EVERY).subscribe(looks::tryEmitNext);
    }

    @Override
    public void stop() {
        Disposable current = ticker;
        if (current != null) {
            current.dispose();
        }
        ticker = null;
    }

    @Override
    public boolean isRunning() {
        return ticker != null;
    }

    /** One connection's state: touched by one look at a time. */
    private final class Stream {

        private final Caller caller;
        private Long ticket;
        private Update sent;
        private long sentAt;
        private long markedAt;
        // The product's abandon-after as last heard (view or Redis): marks go on without a fresh view.
        private long abandonMillis;
        // 0, not Long.MIN_VALUE: "now - askedRedisAt" must not overflow, or the first question never goes.
        private long askedRedisAt;

        Stream(Caller caller) {
            this.caller = caller;
            this.ticket = caller.ticket();
        }

        /** The update to send now, if any. */
        Mono<Update> look() {
            // A token due to be signed again, or signed before Redis forgot: the page asks again for
            // a fresh one (and what the old one proves comes back on the way).
            if (caller.token() != null && (tokens.dueForRenewal(caller.token())
                    || reclaims.signedBeforeALoss(caller.token()))) {
                return Mono.just(Update.RENEW);
            }
            long now = store.millis();
            LocalStanding standing = ticket == null ? null : local.status(caller.productId(), caller.userId(), ticket, false,
                    caller.token() == null ? null : caller.token().epoch());
            if (standing != null) {
                abandonMillis = standing.abandonAfter().toMillis();
                markSeen(now);
                return send(Update.of(standing.placement(), standing.stock()), now);
            }
            // Without an answer from the view the shopper is still there: a place must not hang on
            // a view that cannot be read (Redis slow) while questions wait a heartbeat.
            markSeen(now);
            // A fresh view that cannot answer means the turn may have come: Redis is asked at the
            // next look, which only the few shoppers near the head do. Without a fresh view (Redis
            // slow or away) every stream would ask, so each waits a heartbeat.
            long askEvery = local.hasFreshView(caller.productId()) ? LOOK_EVERY.toMillis() : heartbeat.toMillis();
            if (now - askedRedisAt >= askEvery) {
                askedRedisAt = now;
                return store.status(caller.productId(), caller.userId()).flatMap(status -> {
                    ticket = status.ticket() != null ? status.ticket() : ticket;
                    abandonMillis = status.abandonAfter().toMillis();
                    // status.lua counted the question as being seen.
                    markedAt = now;
                    return send(Update.of(status.placement(), status.stock()), now);
                });
            }
            return sent != null && now - sentAt >= heartbeat.toMillis() ? send(sent, now) : Mono.empty();
        }

        /**
         * Every quarter abandon-after (at most once a look): promotion counts a shopper seen within
         * abandon-after, so a look that comes late or a flush that fails still leaves time for
         * the next mark. A mark is a bit in a batched write: cheap enough to send often.
         */
        private void markSeen(long now) {
            if (ticket != null && abandonMillis > 0 && now - markedAt >= abandonMillis / 4) {
                markedAt = now;
                local.seen(caller.productId(), ticket);
            }
        }

        private Mono<Update> send(Update update, long now) {
            if (update.equals(sent) && now - sentAt < heartbeat.toMillis()) {
                return Mono.empty();
            }
            sent = update;
            sentAt = now;
            return Mono.just(update);
        }
    }

    /**
     * One event's data.
     *
     * @param status {@code WAITING}, {@code PRE_QUEUE} (a sale not yet open), {@code ACTIVE}
     *               (admitted), {@code SOLD_OUT} (the stock is gone: the stream ends, the place is
     *               kept should it be restocked), {@code NOT_FOUND}, or {@code RENEW} (load the page
     *               again for a freshly signed token)
     * @param rank 1-based place while waiting
     * @param estimatedWaitSeconds while waiting and once a rate is known
     * @param stock the units the product has left, once known (0 when sold out)
     * @param withinStock whether that stock can serve the place once everyone ahead has bought,
     *                    while waiting and once the stock is known
     */
    public record Update(String status, Long rank, Long estimatedWaitSeconds, Long stock, Boolean withinStock) {

        static final Update ACTIVE = new Update("ACTIVE", null, null, null, null);
        static final Update RENEW = new Update("RENEW", null, null, null, null);
        static final Update SOLD_OUT = new Update("SOLD_OUT", null, null, 0L, null);

        boolean isWaiting() {
            return "WAITING".equals(status) || "PRE_QUEUE".equals(status);
        }

        String event() {
            return isWaiting() ? "status" : status.toLowerCase();
        }

        static Update of(Placement placement, Stock stock) {
            Long left = stock == null ? null : stock.left();
            return switch (placement.state()) {
                case PRE_QUEUE -> new Update("PRE_QUEUE", null, null, left, null);
                case WAITING -> new Update("WAITING", placement.rank(),
                        WaitEstimate.seconds(placement.rank(), placement.admissionRate()), left,
                        stock == null ? null : stock.serves(placement.rank()));
                case ACTIVE -> ACTIVE;
                case SOLD_OUT -> SOLD_OUT;
                default -> new Update("NOT_FOUND", null, null, null, null);
            };
        }
    }
}
