package io.queuegate.line;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.queuegate.store.QueueScripts;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The shoppers in line this instance heard from without asking Redis (answers from its view of the
 * line), gathered per product and written every {@link #FLUSH_EVERY} in one {@code seen.lua} call
 * per product and {@link #PER_CALL} tickets: abandon-after needs to know who is still there, not
 * one write per poll. A write that fails keeps its marks for the next flush. A product whose
 * shoppers asked is told so with every flush, marks due or not: its outage detection
 * ({@code heard_at}) must not take a spell without marks (live pages mark every half
 * abandon-after) for an outage.
 */
public class SeenMarks implements SmartLifecycle {

    /** How late a mark may reach Redis; abandon-after is counted in spans of a quarter of it, at least 250 ms. */
    public static final Duration FLUSH_EVERY = Duration.ofMillis(250);

    /** Tickets per script call: about 0.3 µs of Redis each, so a call holds Redis well under a millisecond. */
    static final int PER_CALL = 1_000;

    /** Marks kept per product between flushes at most (a failing Redis must not fill the heap). */
    static final int MAX_PENDING = 1_000_000;

    private static final Log log = LogFactory.getLog(SeenMarks.class);

    private final QueueScripts scripts;
    private final Clock clock;
    private final Map<String, Set<Long>> pending = new ConcurrentHashMap<>();
    // Products asked about since the last flush: each is told it was heard from, marks due or not.
    private final Set<String> asked = ConcurrentHashMap.newKeySet();
    private volatile Disposable flushing;

    public SeenMarks(QueueScripts scripts, Clock clock) {
        this.scripts = scripts;
        this.clock = clock;
    }

    /** The holder of {@code ticket} asked about their place in the product's line just now. */
    void mark(String productId, long ticket) {
        Set<Long> tickets = pending.computeIfAbsent(productId, id -> ConcurrentHashMap.newKeySet());
        if (tickets.size() < MAX_PENDING) {
            tickets.add(ticket);
        }
    }

    /** Someone asked about the product's line just now. */
    void heard(String productId) {
        asked.add(productId);
    }

    /** Writes what was gathered, one product after another. */
    Mono<Void> flush() {
        Set<String> products = new HashSet<>(pending.keySet());
        for (String productId : List.copyOf(asked)) {
            asked.remove(productId);
            products.add(productId);
        }
        return Flux.fromIterable(products)
                .concatMap(this::flush, 1)
                .then();
    }

    private Mono<Void> flush(String productId) {
        Set<Long> tickets = pending.remove(productId);
        if (tickets == null || tickets.isEmpty()) {
            return scripts.seen().run(productId, clock.millis(), List.of()).then().onErrorResume(error -> Mono.empty());
        }
        List<List<Long>> calls = new ArrayList<>();
        List<Long> call = new ArrayList<>(Math.min(PER_CALL, tickets.size()));
        for (Long ticket : tickets) {
            call.add(ticket);
            if (call.size() == PER_CALL) {
                calls.add(call);
                call = new ArrayList<>(PER_CALL);
            }
        }
        if (!call.isEmpty()) {
            calls.add(call);
        }
        return Flux.fromIterable(calls)
                .concatMap(batch -> scripts.seen().run(productId, clock.millis(), batch)
                        .onErrorResume(error -> {
                            log.debug("Could not mark " + batch.size() + " shoppers of product " + productId
                                    + " seen; trying again with the next flush: " + error);
                            batch.forEach(ticket -> mark(productId, ticket));
                            return Mono.empty();
                        }), 1)
                .then();
    }

    @Override
    public void start() {
        flushing = Flux.interval(FLUSH_EVERY)
                .onBackpressureDrop()
                .concatMap(tick -> flush(), 1)
                .subscribe();
    }

    @Override
    public void stop() {
        Disposable current = flushing;
        if (current != null) {
            current.dispose();
        }
        flushing = null;
        // What was heard last still counts.
        flush().subscribe();
    }

    @Override
    public boolean isRunning() {
        return flushing != null;
    }
}
