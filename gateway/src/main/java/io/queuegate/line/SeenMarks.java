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
 * shoppers asked is told so with every flush for {@link #HEARD_LINGER} after they asked, marks
 * due or not: its outage detection ({@code heard_at}) must not take a spell without marks (live
 * pages mark every quarter abandon-after) for an outage.
 */
public class SeenMarks implements SmartLifecycle {

    /** How late a mark may reach Redis; abandon-after is counted in spans of a quarter of it, at least 250 ms. */
    public static final Duration FLUSH_EVERY = Duration.ofMillis(250);

    /**
     * How long a product asked about is still reported heard from at every flush: longer than a
     * live page's look period (1 s), so its outage detection never sees a gap for a late look.
     */
    static final Duration HEARD_LINGER = Duration.ofMillis(1_500);

    /** Tickets per script call: about 0.3 µs of Redis each, so a call holds Redis well under a millisecond. */
    static final int PER_CALL = 1_000;

    /** Marks kept per product between flushes at most (a failing Redis must not fill the heap). */
    static final int MAX_PENDING = 1_000_000;

    private static final Log log = LogFactory.getLog(SeenMarks.class);

    private final QueueScripts scripts;
    private final Clock clock;
    private final Map<String, Set<Long>> pending = new ConcurrentHashMap<>();
    // When each product was last asked about: it is told it was heard from at every flush for
    // HEARD_LINGER after that, marks due or not, so a product whose shoppers ask once a second (a
    // live page looks that often) is reported at every flush, not only at the flush after a look.
    private final Map<String, Long> asked = new ConcurrentHashMap<>();
    private volatile Disposable flushing;

    public SeenMarks(QueueScripts scripts, Clock clock) {
        this.scripts = scripts;
        this.clock = clock;
    }

    /** The holder of {@code ticket} asked about their place in the product's line just now. */
    void mark(String productId, long ticket) {
        // Inside the map's lock on the product, as the flush's removal is: no mark lands in a set
        // the flush already took.
        pending.compute(productId, (id, tickets) -> {
            Set<Long> all = tickets != null ? tickets : new HashSet<>();
            if (all.size() < MAX_PENDING) {
                all.add(ticket);
            }
            return all;
        });
    }

    /** Someone asked about the product's line just now. */
    void heard(String productId) {
        asked.put(productId, clock.millis());
    }

    /** Writes what was gathered, one product after another. */
    Mono<Void> flush() {
        Set<String> products = new HashSet<>(pending.keySet());
        long lingerSince = clock.millis() - HEARD_LINGER.toMillis();
        asked.forEach((productId, at) -> {
            products.add(productId);
            if (at < lingerSince) {
                asked.remove(productId, at);
            }
        });
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
