package io.queuegate.line;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

import io.queuegate.store.QueueScripts;
import io.queuegate.store.script.ViewScript;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import reactor.core.publisher.Mono;

/** One product's view and its reads: at most one in flight. */
final class ProductView {

    private static final Log log = LogFactory.getLog(LineViews.class);

    final String productId;
    private final QueueScripts scripts;
    private final Clock clock;
    /** Told each view read, to remember it for the product's recovery. */
    private final BiConsumer<LineView, ViewScript.Result> readDone;
    private final AtomicBoolean inFlight = new AtomicBoolean();
    /** The read under way, for those who wait for its view; {@code null} when none is. */
    volatile Mono<LineView> reading;
    final AtomicLong admissions = new AtomicLong();
    final AtomicLong invitedJoins = new AtomicLong();
    /** User to when their place changed in a way the view does not show yet. */
    final Map<String, Long> answeredByRedis = new ConcurrentHashMap<>();
    volatile LineView view;
    volatile long askedAt;
    // Set when a change makes the read in flight (sent before it) worthless.
    volatile boolean stale;

    ProductView(String productId, QueueScripts scripts, Clock clock, BiConsumer<LineView, ViewScript.Result> readDone) {
        this.productId = productId;
        this.scripts = scripts;
        this.clock = clock;
        this.readDone = readDone;
    }

    /** The head moved: read again once the view is a little old. */
    void moved() {
        LineView current = view;
        if (current == null || clock.millis() - current.readAt() >= LineViews.REFRESH_AFTER_ADMISSION.toMillis()) {
            read();
        }
    }

    void read() {
        if (!inFlight.compareAndSet(false, true)) {
            return;
        }
        stale = false;
        long sentAt = clock.millis();
        long heard = admissions.get();
        long invitedHeard = invitedJoins.get();
        LineView previous = view;
        Mono<LineView> read = Mono.defer(() -> scripts.view().run(productId,
                        previous == null ? null : previous.leftVersion(), previous == null ? -1 : previous.leftCount(),
                        previous == null ? null : previous.invited().leftVersion(),
                        previous == null ? -1 : previous.invited().leftCount()))
                .<LineView>handle((answer, sink) -> {
                    if (!stale) {
                        LineView fresh = LineView.of(sentAt, heard, invitedHeard, answer,
                                previous != null && previous.epoch() != null
                                        && previous.epoch().equals(answer.epoch()) ? previous : null,
                                answer.epoch());
                        view = fresh;
                        readDone.accept(fresh, answer);
                        sink.next(fresh);
                    }
                })
                .doFinally(signal -> {
                    reading = null;
                    inFlight.set(false);
                    if (stale) {
                        read();
                    }
                })
                .cache();
        reading = read;
        read.subscribe(fresh -> {
        }, error -> log.debug("Could not read the line of product " + productId
                + "; Redis answers its shoppers until a read succeeds: " + error));
    }
}
