package io.queuegate.recovery;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;

import io.queuegate.store.ProductRegistry;
import io.queuegate.store.QueueScripts;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Teaches this instance's {@link SessionLedger} the places and sessions that ended lately on any
 * instance, from Redis's record of them ({@code ended.lua}), when it starts and whenever it reads a
 * new epoch: for every product it knows (the configured ones, the recently active ones, those it
 * remembers). After a loss every instance's recovery then refuses the tokens signed before those
 * ends, so a spent admission stays spent although the instance that heard the purchase is gone (a
 * rolling deploy, an autoscaled pod). What still passes is a loss of Redis and of every instance at
 * once: docs/operations.md, "When Redis forgets".
 */
public final class SpentAdmissions implements SmartLifecycle {

    /** Products read at once. */
    private static final int CONCURRENCY = 4;

    /** Recently active products read, beyond the configured ones. */
    static final int MAX_ACTIVE = ProductRegistry.MAX_ACTIVE_PRODUCTS;

    /** How long a startup waits for the record before it serves without it. */
    private static final Duration STARTUP_WAIT = Duration.ofSeconds(10);

    private static final Log log = LogFactory.getLog(SpentAdmissions.class);

    private final QueueScripts scripts;
    private final SessionLedger ledger;
    private final ProductRegistry registry;
    private final Set<String> configured;
    private volatile boolean running;

    /** @param configured the products of {@code queuegate.products} */
    public SpentAdmissions(QueueScripts scripts, SessionLedger ledger, ProductRegistry registry, Set<String> configured) {
        this.scripts = scripts;
        this.ledger = ledger;
        this.registry = registry;
        this.configured = Set.copyOf(configured);
    }

    /** Reads the record of every product this instance knows into the ledger. Never fails. */
    public Mono<Void> learn() {
        Set<String> known = new LinkedHashSet<>(configured);
        known.addAll(ledger.products());
        return registry.recentlyActive(MAX_ACTIVE)
                .onErrorResume(error -> Flux.empty())
                .collectList()
                .flatMapMany(active -> {
                    known.addAll(active);
                    return Flux.fromIterable(known);
                })
                .flatMap(productId -> scripts.ended().run(productId)
                        .doOnNext(ended -> ended.forEach((user, at) -> ledger.endedAt(productId, user, at)))
                        .onErrorResume(error -> {
                            log.debug("Could not read the ended sessions of product " + productId + ": " + error);
                            return Mono.empty();
                        }), CONCURRENCY)
                .then();
    }

    /** At startup, before traffic: waits for the record a little, and serves without it if Redis cannot say. */
    @Override
    public void start() {
        running = true;
        try {
            // Startup, not a request: the instance must know the ends before it recovers anything.
            learn().timeout(STARTUP_WAIT).onErrorResume(error -> {
                log.warn("Could not read from Redis which sessions ended lately: should Redis forget before this "
                        + "instance has heard of them, tokens of those sessions may come back: " + error);
                return Mono.empty();
            }).block();
        }
        catch (RuntimeException ex) {
            log.warn("Could not read from Redis which sessions ended lately: " + ex);
        }
    }

    @Override
    public void stop() {
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
