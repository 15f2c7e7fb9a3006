package io.queuegate.recovery;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.queuegate.events.QueueEvents;
import io.queuegate.line.LineViews;
import io.queuegate.line.RememberedView;
import io.queuegate.store.DrawSeed;
import io.queuegate.store.DrawSeeds;
import io.queuegate.store.DueIndex;
import io.queuegate.store.ProductRecovery;
import io.queuegate.store.ProductRules;
import io.queuegate.store.QueueScripts;
import io.queuegate.store.RedisEpoch;
import io.queuegate.store.script.RecoverScript;
import io.queuegate.store.script.ViewScript;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Brings a product's line back after Redis forgot: merges what this instance remembers of it (its
 * last view of the line, {@link LineViews#remembered}; the sessions it heard of,
 * {@link SessionLedger}; the rules its last join used) into Redis with {@code recover.lua}. Asked
 * for by any script that meets an unrecovered product, and run at once for every product this
 * instance remembers when it sees the epoch change, so the places its shoppers hold are known
 * to Redis before newcomers take tickets. A recovery in flight for a product is shared.
 */
public final class LineRecovery implements ProductRecovery {

    /**
     * The fewest tickets the line's floor stands above the last ticket read: those taken in the
     * moment between the last read and the loss, which only their holders' tokens know.
     */
    static final long MIN_MARGIN = 16;

    /** The most: beyond it, a ticket that returns stands in the places reclaimed ahead of the line. */
    static final long MAX_MARGIN = 5_000;

    /** How many seconds of the line's pace the margin covers: a view is read every half second. */
    static final double MARGIN_SECONDS = 3;

    /** Products recovered at once when the epoch changes. */
    private static final int CONCURRENCY = 4;

    /** Rules remembered at most for this many products: past it, a product's own join brings them. */
    private static final int MAX_RULES = 10_000;

    private static final Log log = LogFactory.getLog(LineRecovery.class);

    private final QueueScripts scripts;
    private final RedisEpoch epoch;
    private final LineViews views;
    private final SessionLedger ledger;
    private final DueIndex due;
    private final QueueEvents events;
    private final DrawSeeds seeds;
    private final Clock clock;
    private final Duration idle;
    private final Map<String, ProductRules> rules = new ConcurrentHashMap<>();
    private final Map<String, Mono<Void>> inFlight = new ConcurrentHashMap<>();

    /** @param idle how long a product's keys outlive their last visitor beyond a session (the token lifetime) */
    public LineRecovery(QueueScripts scripts, RedisEpoch epoch, LineViews views, SessionLedger ledger, DueIndex due,
            QueueEvents events, DrawSeeds seeds, Clock clock, Duration idle) {
        this.scripts = scripts;
        this.epoch = epoch;
        this.views = views;
        this.ledger = ledger;
        this.due = due;
        this.events = events;
        this.seeds = seeds;
        this.clock = clock;
        this.idle = idle;
    }

    @Override
    public void rulesUsed(String productId, ProductRules productRules) {
        if (!productRules.equals(rules.get(productId)) && (rules.size() < MAX_RULES || rules.containsKey(productId))) {
            rules.put(productId, productRules);
        }
    }

    @Override
    public ProductRules lastRules(String productId) {
        return rules.get(productId);
    }

    @Override
    public Mono<Void> recover(String productId, ProductRules given) {
        if (given != null) {
            rulesUsed(productId, given);
        }
        return Mono.defer(() -> {
            Mono<Void> running = inFlight.computeIfAbsent(productId, id -> run(id).cache());
            return running.doFinally(signal -> inFlight.remove(productId, running));
        });
    }

    /** Forgets the rules remembered: Redis's data were replaced on purpose (a restore, a test's flush). */
    public void forgetAll() {
        rules.clear();
    }

    /** The epoch changed: every product this instance remembers is recovered now, a few at a time. */
    public void epochChanged() {
        Set<String> products = new LinkedHashSet<>(views.rememberedProducts());
        products.addAll(ledger.products());
        products.addAll(rules.keySet());
        Flux.fromIterable(products)
                .flatMap(productId -> recover(productId, null).onErrorResume(error -> {
                    log.warn("Could not recover product " + productId + " after Redis forgot; its next request "
                            + "recovers it: " + error);
                    return Mono.empty();
                }), CONCURRENCY)
                .subscribe();
    }

    private Mono<Void> run(String productId) {
        return epoch.current().flatMap(current -> {
            long now = clock.millis();
            ProductRules productRules = rules.get(productId);
            boolean adopt = !current.recovering(now, epoch.window());
            RecoverScript.Knowledge known = adopt ? RecoverScript.Knowledge.NONE
                    : knowledge(productId, productRules);
            long until = current.since() + epoch.window().toMillis();
            if (productRules != null && productRules.opensAt() != null) {
                // A pre-queue's places are kept until its opening and the time to come back after it.
                long opening = productRules.opensAt().toEpochMilli();
                until = Math.max(until, opening + Math.max(productRules.abandonAfter().toMillis(),
                        epoch.window().toMillis()));
            }
            Duration keysLive = productRules == null ? idle : idle.plus(productRules.sessionTtl());
            return scripts.recover().run(productId, new RecoverScript.Args(now, keysLive, until, adopt, productRules,
                    known));
        }).doOnNext(result -> {
            if (result.recovered()) {
                events.recovered(productId, result.floor());
                due.mark(productId);
            }
        }).then();
    }

    /** What this instance remembers of the product, as recover.lua takes it. */
    RecoverScript.Knowledge knowledge(String productId, ProductRules productRules) {
        RememberedView view = views.remembered(productId);
        var sessions = ledger.running(productId).stream()
                .map(session -> new RecoverScript.Session(session.userId(), session.endsAt(), session.admittedAt()))
                .toList();
        Map<String, Long> ended = ledger.ended(productId);
        if (view == null) {
            return new RecoverScript.Knowledge(null, null, MIN_MARGIN, null, null, null, null, null, false, null,
                    sessions, ended);
        }
        long margin = Math.max(MIN_MARGIN, Math.min(MAX_MARGIN, (long) Math.ceil(view.ticketsPerSecond()
                * MARGIN_SECONDS)));
        RecoverScript.Line main = new RecoverScript.Line(view.head(), view.last(), view.left(),
                view.drawFrom() < 0 ? null : view.drawFrom(), view.drawTo() < 0 ? null : view.drawTo());
        ViewScript.Line line = view.invited();
        RecoverScript.Line invited = line == ViewScript.Line.EMPTY ? null
                : new RecoverScript.Line(line.head(), line.last(), line.left(),
                        line.drawFrom() < 0 ? null : line.drawFrom(), line.drawTo() < 0 ? null : line.drawTo());
        DrawSeed seed = drawSeed(productId, view, productRules);
        return new RecoverScript.Knowledge(main, invited, margin, seed == null ? null : seed.seed(),
                seed == null ? null : seed.commitment(),
                view.opened() < 0 ? null : view.opened(), view.readAt(), view.mode(), view.draining(),
                view.maxOverride() < 0 ? null : (int) view.maxOverride(), sessions, ended);
    }

    /**
     * The seed of the product's last draw, worked out again from the sale it was opened for (the
     * one whose commitment the instance read, when it read one); {@code null} without a draw, or
     * for a draw this release cannot work out again (its seed was random).
     */
    private DrawSeed drawSeed(String productId, RememberedView view, ProductRules productRules) {
        if (view.drawFrom() < 0) {
            return null;
        }
        if (view.seed() != null && !view.seed().isEmpty()) {
            return DrawSeed.of(view.seed());
        }
        long opens = view.drawOpens() >= 0 ? view.drawOpens() : view.opens() >= 0 ? view.opens()
                : productRules != null && productRules.opensAt() != null ? productRules.opensAt().toEpochMilli() : -1;
        return opens < 0 ? null : seeds.recover(productId, Instant.ofEpochMilli(opens), view.commitment());
    }
}
