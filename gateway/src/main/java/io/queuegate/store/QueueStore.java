package io.queuegate.store;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.queuegate.ops.QueueEventHub;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.Limit;
import org.springframework.data.redis.connection.RedisStreamCommands.XAddOptions;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.ZSetOperations;
import org.springframework.data.redis.core.script.RedisScript;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The queue state in Redis: every read-decide-write is one script, so any number of gateway
 * instances can share a product's queue without locks.
 */
public class QueueStore {

    private final ReactiveStringRedisTemplate redis;
    private final QueueScripts scripts;
    private final Clock clock;
    private final RedisGuard guard;
    private final long streamMaxLength;
    private final Duration idleTtl;
    private final Set<String> unregistered = ConcurrentHashMap.newKeySet();
    private final Set<String> timed = ConcurrentHashMap.newKeySet();
    private final Set<String> dueMarks = ConcurrentHashMap.newKeySet();

    /** How often products with a clock of their own (opens-at, max-admit-per-minute) are promoted. */
    public static final Duration TIMED_PERIOD = Duration.ofMillis(250);

    /** How often products with new waiters are written to the registry. */
    public static final Duration REGISTRATION_PERIOD = Duration.ofMillis(250);
    private final QueueEventHub events = new QueueEventHub();

    /**
     * @param idleTtl how long a product's queue outlives its last join, beyond a session (the
     *                token lifetime)
     */
    public QueueStore(ReactiveStringRedisTemplate redis, QueueScripts scripts, Clock clock, RedisGuard guard,
            long streamMaxLength, Duration idleTtl) {
        this.redis = redis;
        this.scripts = scripts;
        this.clock = clock;
        this.guard = guard;
        this.streamMaxLength = streamMaxLength;
        this.idleTtl = idleTtl;
    }

    /**
     * Where queue events go: the store reports what its scripts did (admissions, leaves,
     * expiries), and the admission path and the promotion loops report through the same hub, so
     * metrics and the audit log register in one place.
     */
    public QueueEventHub events() {
        return events;
    }

    /**
     * Joins (or finds) the user in the product's queue under plain queue rules and fills free
     * places in the same step. The settings are stored with the product, so promotions without a
     * request use them.
     */
    public Mono<Placement> join(String productId, String userId, int maxActive, Duration sessionTtl, String strategy) {
        return joinFor(productId, userId, ProductRules.plain(maxActive, sessionTtl, strategy)).map(Joined::placement);
    }

    /**
     * The outcome of a join, and whether it took a new ticket.
     *
     * @param enqueued whether this call put the user at the back of the line (a new join, not a poll)
     */
    public record Joined(Placement placement, boolean enqueued) {
    }

    /** Joins (or finds) the user under the product's rules, telling whether the call took a new ticket. */
    public Mono<Joined> joinFor(String productId, String userId, ProductRules rules) {
        return joinFor(productId, userId, rules, false);
    }

    /**
     * Like {@link #joinFor(String, String, ProductRules)}; with {@code completing}, an active
     * user must also claim the session's completion (state {@link Placement.State#COMPLETING}
     * when another request holds it). The claim ends with the session, or with
     * {@link #releaseCompletion}.
     */
    public Mono<Joined> joinFor(String productId, String userId, ProductRules rules, boolean completing) {
        QueueKeys keys = QueueKeys.of(productId);
        // A queue outlives its last join by a token's lifetime plus a session: nobody can still
        // hold a valid claim on it after that.
        Duration idle = idleTtl.plus(rules.sessionTtl());
        String[] drop = rules.scriptArguments();
        return run(scripts.join(), keys.forScripts(), userId, now(), Integer.toString(rules.maxActive()),
                Long.toString(rules.sessionTtl().toMillis()), rules.strategy(), Long.toString(idle.toMillis()),
                drop[0], drop[1], drop[2], drop[3], drop[4], rules.opensAt() == null ? "" : drawSeed(),
                completing ? "1" : "0")
                .map(r -> {
                    Placement placement = Placement.fromScript(r.get(0), r.get(1), r.get(2), r.get(4));
                    events.promoted(productId, "join", placement.promoted());
                    Joined joined = new Joined(placement, r.get(3) == 1);
                    // Only a new waiter needs the scheduler to know the product. The registry is a
                    // key of another slot, so it is written in batches off the request path.
                    if (joined.enqueued() && placement.state() != Placement.State.ACTIVE) {
                        unregistered.add(productId);
                        dueMarks.add(productId);
                    }
                    // A promotion while others wait starts a session whose end the safety net must
                    // see. A caller let in alone (promoted = 1, themselves) had nobody ahead.
                    if (placement.promoted() > (placement.state() == Placement.State.ACTIVE ? 1 : 0)) {
                        dueMarks.add(productId);
                    }
                    if (rules.isTimed()) {
                        timed.add(productId);
                    }
                    return joined;
                });
    }

    /**
     * A seed for a pre-queue's draw, in case this join opens one: 53 random bits (exact as a Redis
     * number), from a generator nobody can predict, unlike any clock.
     */
    private static String drawSeed() {
        return Long.toString(SEEDS.nextLong() >>> 11);
    }

    private static final SecureRandom SEEDS = new SecureRandom();

    /**
     * Products joined on this instance whose promotion runs on a clock (a sale to open at its
     * time, a pace to keep): the scheduler promotes them every {@link #TIMED_PERIOD}, since no
     * freed place announces that an admission has become due.
     */
    public Set<String> timedProducts() {
        return timed;
    }

    /**
     * Learns from a script that the product is timed: an instance started after the product's
     * joins (a rolling restart) hears of it from a status poll or a safety-net pass instead.
     */
    private void keepsTime(String productId, long timed) {
        if (timed == 1) {
            this.timed.add(productId);
        }
    }

    /** Forgets a timed product nobody waits for any more. */
    public void forgetTimed(String productId) {
        timed.remove(productId);
    }

    /**
     * Adds the products that got new waiters since the last call to the registry, in one command.
     * Called every {@link #REGISTRATION_PERIOD}: a product waits at most that long, plus a
     * promotion period, before the scheduler sees it (joins and leaves promote in-script anyway).
     */
    public Mono<Void> registerNewProducts() {
        if (unregistered.isEmpty()) {
            return Mono.empty();
        }
        List<String> batch = List.copyOf(unregistered);
        batch.forEach(unregistered::remove);
        return register(batch.toArray(String[]::new)).then()
                .doOnError(error -> unregistered.addAll(batch));
    }

    /**
     * Marks the products that got new waiters or promotions since the last call as due now, in
     * one command, so the next safety-net pass looks at them. Called every
     * {@link #REGISTRATION_PERIOD} with {@link #registerNewProducts()}.
     */
    public Mono<Void> markDueProducts() {
        if (dueMarks.isEmpty()) {
            return Mono.empty();
        }
        List<String> batch = List.copyOf(dueMarks);
        batch.forEach(dueMarks::remove);
        double now = clock.millis();
        Set<ZSetOperations.TypedTuple<String>> marks = new HashSet<>();
        batch.forEach(productId -> marks.add(ZSetOperations.TypedTuple.of(productId, now)));
        return guard.guard(redis.opsForZSet().addAll(QueueKeys.DUE, marks)).then()
                .doOnError(error -> dueMarks.addAll(batch));
    }

    /** Products due by {@code until} (epoch ms) with the score they were due at, read in pages. */
    public Flux<ZSetOperations.TypedTuple<String>> dueProducts(long until) {
        Range<Double> due = Range.of(Range.Bound.unbounded(), Range.Bound.inclusive((double) until));
        return Flux.range(0, Integer.MAX_VALUE)
                .concatMap(page -> guard.guard(redis.opsForZSet()
                                .rangeByScoreWithScores(QueueKeys.DUE, due,
                                        Limit.limit().offset(page * DUE_PAGE).count(DUE_PAGE)))
                        .collectList(), 1)
                .takeUntil(entries -> entries.size() < DUE_PAGE)
                .concatMapIterable(entries -> entries);
    }

    private static final int DUE_PAGE = 1_000;

    /**
     * One safety-net promotion of a due product.
     *
     * @return {moved, next}: moved as {@link #promote}; next = when the product is next due
     *         (epoch ms), -1 = not until a new event, -2 = unchanged (skipped for its strategy)
     */
    public Mono<List<Long>> promoteDue(String productId, String onlyStrategy) {
        QueueKeys keys = QueueKeys.of(productId);
        return run(scripts.due(), keys.forScripts(), now(), onlyStrategy)
                .doOnNext(result -> {
                    events.promoted(productId, "promote", result.get(0));
                    keepsTime(productId, result.get(2));
                });
    }

    /**
     * Writes a pass's results back to the due index: triples of product id, the score the pass
     * read, and the next due time (-1 = remove); a product marked due meanwhile keeps its mark.
     */
    public Mono<Long> reschedule(List<String> triples) {
        if (triples.isEmpty()) {
            return Mono.just(0L);
        }
        return guard.guard(redis.execute(scripts.reschedule(), List.of(QueueKeys.DUE), triples).next());
    }

    /** Adds products to the due index at {@code at}, or moves them earlier; never later. */
    public Mono<Void> dueBy(Map<String, Long> at) {
        if (at.isEmpty()) {
            return Mono.empty();
        }
        List<String> args = new ArrayList<>();
        at.forEach((productId, when) -> {
            args.add(Long.toString(when));
            args.add(productId);
        });
        return guard.guard(redis.execute(DUE_BY, List.of(QueueKeys.DUE), args).then());
    }

    // ZADD LT adds new members and only ever lowers existing scores: a sweep never delays a mark.
    private static final RedisScript<Long> DUE_BY = RedisScript.of(
            "return redis.call('ZADD', KEYS[1], 'LT', unpack(ARGV))", Long.class);

    private Mono<Long> register(String... productIds) {
        return guard.guard(redis.opsForSet().add(QueueKeys.PRODUCTS, productIds));
    }

    /** Where the user stands, without joining. */
    public Mono<Placement> status(String productId, String userId) {
        QueueKeys keys = QueueKeys.of(productId);
        return run(scripts.status(), keys.forScripts(), userId, now())
                .doOnNext(r -> keepsTime(productId, r.get(5)))
                .map(Placement::fromStatus);
    }

    /**
     * Ends the user's place (waiting or active) and refills it at once.
     *
     * @return whether the user held a place
     */
    public Mono<Boolean> leave(String productId, String userId) {
        return release(productId, userId, "leave").doOnNext(held -> {
            if (held) {
                events.left(productId, userId);
            }
        });
    }

    /**
     * Ends an admitted user's session after their {@code complete-on} request succeeded; like
     * {@link #leave}, but the caller reports the completion (it knows the route).
     *
     * @return whether the user held a place
     */
    public Mono<Boolean> complete(String productId, String userId) {
        return release(productId, userId, "completion");
    }

    private Mono<Boolean> release(String productId, String userId, String trigger) {
        QueueKeys keys = QueueKeys.of(productId);
        return run(scripts.leave(), keys.forScripts(), userId, now(), keys.slotAvailableChannel())
                .flatMap(r -> {
                    boolean held = r.get(0) > 0;
                    events.promoted(productId, trigger, r.get(1));
                    if (r.get(1) > 0) {
                        dueMarks.add(productId);
                    }
                    return r.get(2) == 1 ? appendSlotEvent(productId).thenReturn(held) : Mono.just(held);
                });
    }

    /**
     * Gives up a completion claim whose request did not complete (the shop did not answer with a
     * success, or the client went away), so the session may complete with another request.
     */
    public Mono<Void> releaseCompletion(String productId, String userId) {
        return guard.guard(redis.delete(QueueKeys.of(productId).completing(userId))).then();
    }

    /**
     * Handles Redis's expiry of a user's slot key ({@code promotion: keyspace}); safe to run on
     * every instance for the same event, only the first counts it.
     *
     * @return users promoted; -3 when the user holds a newer session; -4 when already handled
     */
    public Mono<Long> expire(String productId, String userId) {
        QueueKeys keys = QueueKeys.of(productId);
        return guard.guard(redis.execute(scripts.expire(), keys.forScripts(), List.of(userId, now())).next())
                .doOnNext(result -> {
                    if (result >= 0) {
                        events.expired(productId, userId);
                        events.promoted(productId, "expiry", result);
                    }
                    if (result > 0) {
                        dueMarks.add(productId);
                    }
                });
    }

    /** Appends a slot-free event for the product to the shared stream, trimmed to about maxLength. */
    Mono<Void> appendSlotEvent(String productId) {
        MapRecord<String, String, String> event = StreamRecords.newRecord()
                .in(QueueKeys.SLOT_EVENTS)
                .ofMap(Map.of("pid", productId));
        return guard.guard(redis.opsForStream()
                .add(event, XAddOptions.maxlen(streamMaxLength).approximateTrimming(true))).then();
    }

    /** Ensures the stream and its consumer group exist; an existing group is fine. */
    public Mono<Void> createSlotEventGroup(String group) {
        return guard.guard(redis.opsForStream().createGroup(QueueKeys.SLOT_EVENTS, ReadOffset.from("0"), group)
                        .onErrorResume(error -> String.valueOf(NestedExceptionUtils.getMostSpecificCause(error).getMessage()).contains("BUSYGROUP"),
                                error -> Mono.empty()))
                .then();
    }

    /**
     * Takes over slot events idle longer than {@code minIdle} in other consumers' pending lists.
     *
     * @return pairs of (event id, product id) now owned by {@code consumer}
     */
    public Flux<String[]> claimSlotEvents(String group, String consumer, Duration minIdle, int batch,
            Duration forgetConsumersAfter) {
        return guard.guard(redis.execute(scripts.claim(), List.of(QueueKeys.SLOT_EVENTS), List.of(group, consumer,
                        Long.toString(minIdle.toMillis()), Integer.toString(batch),
                        Long.toString(forgetConsumersAfter.toMillis()))))
                .concatMapIterable(flat -> {
                    List<String[]> pairs = new ArrayList<>();
                    for (int i = 0; i + 1 < flat.size(); i += 2) {
                        pairs.add(new String[] { flat.get(i), flat.get(i + 1) });
                    }
                    return pairs;
                });
    }

    public Mono<Long> acknowledgeSlotEvent(String group, String eventId) {
        return guard.guard(redis.opsForStream().acknowledge(QueueKeys.SLOT_EVENTS, group, eventId));
    }

    /**
     * One promotion pass for one product.
     *
     * @param onlyStrategy promote only when the product uses this strategy; empty for any
     * @return users moved; 0 when full; -1 when nobody waits; -2 when skipped for its strategy
     */
    public Mono<Long> promote(String productId, String onlyStrategy) {
        QueueKeys keys = QueueKeys.of(productId);
        return guard.guard(redis.execute(scripts.promote(), keys.forScripts(), List.of(now(), onlyStrategy))
                .next())
                .doOnNext(moved -> {
                    events.promoted(productId, "promote", moved);
                    if (moved > 0) {
                        dueMarks.add(productId);
                    }
                });
    }

    /** Every product that currently has a queue; scanned, so a large registry never blocks Redis. */
    public Flux<String> products() {
        return guard.guard(redis.opsForSet().scan(QueueKeys.PRODUCTS, ScanOptions.scanOptions().count(500).build()));
    }

    /**
     * Drops a product whose wait queue was seen empty. Re-checks after removing: a join that
     * enqueued before the removal is seen by the re-check and put back; one that enqueues after
     * it registers the product itself. Either way no waiter is left outside the registry.
     */
    public Mono<Void> forgetIfIdle(String productId) {
        return guard.guard(redis.opsForSet().remove(QueueKeys.PRODUCTS, productId))
                .then(snapshot(productId))
                .flatMap(queue -> queue.waiting() > 0 ? register(productId).then() : Mono.<Void>empty());
    }

    /**
     * Applies an operator's change to one product in Redis, for every instance at once.
     *
     * @param action {@code max}, {@code mode}, {@code pause}, {@code resume}, {@code drain} or
     *               {@code undrain}
     * @param value the new max-active for {@code max} ("" = back to the route's), the room mode
     *              for {@code mode}, else ""
     * @return users promoted by the change
     */
    public Mono<Long> control(String productId, String action, String value) {
        QueueKeys keys = QueueKeys.of(productId);
        return guard.guard(redis.execute(scripts.admin(), keys.forScripts(), List.of(action, value, now()))
                .next())
                .doOnNext(moved -> {
                    events.promoted(productId, "admin", moved);
                    // A resume, a new mode or a larger max-active changes what is due.
                    dueMarks.add(productId);
                });
    }

    /** The product's queue as operators see it, in one read-only script call. */
    public Mono<QueueSnapshot> snapshot(String productId) {
        QueueKeys keys = QueueKeys.of(productId);
        return run(scripts.snapshot(), keys.forScripts(), now()).map(QueueSnapshot::fromScript);
    }

    /**
     * The first {@code limit} users in the product's line, in order (before a sale opens, in
     * ticket order: its draw applies from the opening on). Read-only; for audits, tools and tests.
     */
    public Mono<List<String>> line(String productId, int limit) {
        return run(scripts.peek(), QueueKeys.of(productId).forScripts(), Integer.toString(limit));
    }

    /** A health probe through the same guard as every call: PONG when Redis answers. */
    public Mono<String> ping() {
        return guard.guard(redis.execute(connection -> connection.ping()).next());
    }

    /** A script whose answer is a list, which the template hands over in parts, as one list. */
    private <T> Mono<List<T>> run(RedisScript<List<T>> script, List<String> keys, String... args) {
        return guard.guard(redis.execute(script, keys, List.of(args))
                .reduce(new ArrayList<T>(), (all, part) -> {
                    all.addAll(part);
                    return all;
                })
                .map(all -> (List<T>) all));
    }

    private String now() {
        return Long.toString(clock.millis());
    }

    /** The store's clock, epoch ms: the {@code now} every script is given. */
    public long millis() {
        return clock.millis();
    }
}
