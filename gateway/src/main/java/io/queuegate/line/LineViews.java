package io.queuegate.line;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.queuegate.store.Channels;
import io.queuegate.store.QueueScripts;

import org.springframework.context.SmartLifecycle;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * This instance's views of the lines of the products its shoppers ask about ({@link LineView}):
 * each is read from Redis ({@code view.lua}, one call) at least every {@link #REFRESH_EVERY} while
 * someone asks, again soon after an admission, and dropped when nobody has asked for
 * {@link #FORGET_AFTER}. A view older than {@link #MAX_AGE} is never used: then Redis answers, as
 * it does before the first read of a product has come back. Admissions are counted as this
 * instance hears of them (its own scripts' at once, the others' as announced), so an answer can
 * leave to Redis whoever may have been admitted since its view was read.
 *
 * <p>The last view of each product is also remembered for {@link #REMEMBER_FOR} after nobody
 * asks any more ({@link RememberedView}): if Redis forgets, it is what this instance brings to the
 * product's recovery. When the epoch of the Redis data changes, every view is dropped (none
 * answers a token of another epoch anyway), and the remembered ones stay.
 */
public class LineViews implements SmartLifecycle {

    /** The staleness the waiting room allows an answer from an instance's memory (like the active cache's). */
    public static final Duration MAX_AGE = Duration.ofSeconds(1);

    /** How often a view in use is read again: well inside {@link #MAX_AGE}, so it is always usable. */
    static final Duration REFRESH_EVERY = Duration.ofMillis(500);

    /** After an announced admission, a view is read again once it is this old. */
    static final Duration REFRESH_AFTER_ADMISSION = Duration.ofMillis(100);

    /** A product nobody asked about this long is forgotten. */
    static final Duration FORGET_AFTER = Duration.ofSeconds(10);

    /**
     * Bounds the memory a flood of invented product ids could take: past this, the products not
     * asked about for {@link #IDLE_WHEN_FULL} are forgotten to make room, and if none is, no new
     * product gets a view (its shoppers are answered by Redis).
     */
    static final int MAX_PRODUCTS = 10_000;

    /** How long a product goes unasked before it may be forgotten to make room. */
    static final Duration IDLE_WHEN_FULL = Duration.ofSeconds(1);

    /**
     * How long a product's last view is remembered for its recovery: a product nobody asked about
     * for longer (beyond its sessions and a token's lifetime) has no state left in Redis to recover.
     */
    static final Duration REMEMBER_FOR = Duration.ofHours(3);

    private static final Duration TICK = Duration.ofMillis(250);

    private final QueueScripts scripts;
    private final Channels channels;
    private final Clock clock;
    private final Map<String, ProductView> products = new ConcurrentHashMap<>();
    private final RememberedViews remembered = new RememberedViews();
    private volatile Disposable ticker;
    /** What other instances (and this one's scripts) announce about the lines. */
    private volatile Disposable listening;

    public LineViews(QueueScripts scripts, Channels channels, Clock clock) {
        this.scripts = scripts;
        this.channels = channels;
        this.clock = clock;
    }

    /**
     * The product's view if it is at most {@link #MAX_AGE} old, else {@code null} (then a read
     * starts, for the next question).
     */
    LineView fresh(String productId) {
        long now = clock.millis();
        ProductView product = products.get(productId);
        if (product == null) {
            if (products.size() >= MAX_PRODUCTS) {
                // A flood of invented ids: the products nobody asked about this last second go,
                // never one that keeps being asked for.
                products.values().removeIf(idle -> now - idle.askedAt > IDLE_WHEN_FULL.toMillis());
                if (products.size() >= MAX_PRODUCTS) {
                    return null;
                }
            }
            product = products.computeIfAbsent(productId,
                    id -> new ProductView(id, scripts, clock, (view, read) -> remembered.remember(id, view, read)));
        }
        product.askedAt = now;
        LineView view = product.view;
        if (view == null || now - view.readAt() >= REFRESH_EVERY.toMillis()) {
            product.read();
        }
        return view != null && now - view.readAt() <= MAX_AGE.toMillis() ? view : null;
    }

    /**
     * The product's view if it is fresh, else the one the read under way brings, waiting at most
     * {@code wait} for it; empty when there is none by then (Redis is slow, or too many products
     * are viewed already).
     */
    Mono<LineView> freshSoon(String productId, Duration wait) {
        LineView view = fresh(productId);
        if (view != null) {
            return Mono.just(view);
        }
        ProductView product = products.get(productId);
        Mono<LineView> reading = product == null ? null : product.reading;
        return reading == null ? Mono.empty() : reading.timeout(wait, Mono.empty()).onErrorResume(error -> Mono.empty());
    }

    /**
     * This instance's own scripts admitted {@code count} users to the product: its head moved, so
     * read it again soon.
     */
    public void admitted(String productId, long count) {
        ProductView product = products.get(productId);
        if (product != null && count > 0) {
            product.admissions.addAndGet(count);
            product.moved();
        }
    }

    /**
     * These users' admission to the product was announced (by any instance, this one included):
     * each of them is sent to Redis for a while, and the view is read again soon.
     */
    public void announced(String productId, String[] users) {
        ProductView product = products.get(productId);
        if (product != null && users.length > 0) {
            product.admissions.addAndGet(users.length);
            long now = clock.millis();
            for (String user : users) {
                product.answeredByRedis.put(user, now);
            }
            product.moved();
        }
    }

    /**
     * The user gave up their place in the product through this instance: they are sent to Redis
     * for a while, so their next status says so at once, not after the view is read again.
     */
    public void left(String productId, String userId) {
        ProductView product = products.get(productId);
        if (product != null) {
            product.answeredByRedis.put(userId, clock.millis());
        }
    }

    /**
     * Places were made in the product's invited line ({@code invites: priority}): by this
     * instance's own join (counted before its answer leaves) or as announced by any instance. Until
     * the next read, the ranks of the main line count them, so they are never too small for
     * their being; a place counted twice only makes them too large until then.
     */
    public void invitedJoined(String productId, long count) {
        ProductView product = products.get(productId);
        if (product != null && count > 0) {
            product.invitedJoins.addAndGet(count);
        }
    }

    /** How many places in the product's invited line this instance heard of since {@code view} was read. */
    long invitedJoinedSince(String productId, LineView view) {
        ProductView product = products.get(productId);
        return product == null ? 0 : Math.max(0, product.invitedJoins.get() - view.invitedJoinsHeard());
    }

    /**
     * Whether only Redis answers the user lately (within twice {@link #MAX_AGE}): their admission
     * was announced, or they left through this instance.
     */
    boolean answeredByRedis(String productId, String userId) {
        ProductView product = products.get(productId);
        return product != null && product.answeredByRedis.containsKey(userId);
    }

    /**
     * How many admissions to the product this instance heard of since {@code view} was read: the
     * shoppers that many places from its head may have been admitted meanwhile.
     */
    long admittedSince(String productId, LineView view) {
        ProductView product = products.get(productId);
        return product == null ? Long.MAX_VALUE : product.admissions.get() - view.admissionsHeard();
    }

    /**
     * An operator changed the product (its mode, its max-active): this instance's view of it is
     * not used again until read anew.
     */
    public void changed(String productId) {
        ProductView product = products.get(productId);
        if (product != null) {
            product.view = null;
            product.stale = true;
            product.read();
        }
    }

    /**
     * Drops every view and what they showed, so the next answers come from Redis and nothing read
     * before is brought back: for when Redis's data were replaced under a running gateway on
     * purpose (a restore, a test's flush), which no announcement and no epoch tells.
     */
    public void forgetAll() {
        products.clear();
        remembered.forgetAll();
    }

    /**
     * The epoch of the Redis data changed: every view is dropped (the next are read in the new
     * one); what they showed stays remembered, for the recovery.
     */
    public void epochChanged() {
        products.clear();
    }

    /** What this instance last read of the product's line, or {@code null}. */
    public RememberedView remembered(String productId) {
        return remembered.of(productId);
    }

    /** Every product this instance remembers a view of. */
    public Set<String> rememberedProducts() {
        return remembered.products();
    }

    /** How many products have a view (for tests and metrics). */
    int size() {
        return products.size();
    }

    @Override
    public void start() {
        ticker = Flux.interval(TICK).subscribe(tick -> refresh());
        listening = LineAnnouncements.listen(channels, this::changed, this::invitedJoined);
    }

    /** Reads again the views in use that are getting old, and forgets the ones nobody asks about. */
    private void refresh() {
        long now = clock.millis();
        remembered.forgetOlderThan(now - REMEMBER_FOR.toMillis());
        products.values().forEach(product -> {
            product.answeredByRedis.values().removeIf(heardAt -> now - heardAt > 2 * MAX_AGE.toMillis());
            if (now - product.askedAt > FORGET_AFTER.toMillis()) {
                products.remove(product.productId, product);
            }
            else if (product.view == null || now - product.view.readAt() >= REFRESH_EVERY.toMillis() - TICK.toMillis()) {
                product.read();
            }
        });
    }

    @Override
    public void stop() {
        for (Disposable current : new Disposable[] {ticker, listening}) {
            if (current != null) {
                current.dispose();
            }
        }
        ticker = null;
        listening = null;
    }

    @Override
    public boolean isRunning() {
        return ticker != null;
    }
}
