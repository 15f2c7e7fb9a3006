package io.queuegate.store;

import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.queuegate.store.script.RescheduleScript;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.Limit;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The index of products whose promotion may be due ({@link QueueKeys#DUE}, score = from when):
 * the safety net promotes only these, so a pass costs what is due, not what exists. New waiters
 * and promotions on any instance mark their product due; the marks are gathered here and written
 * in one command every {@link #FLUSH_PERIOD}, off the request path (the index is a key of another
 * slot than the product's, so no product script can write it).
 */
public final class DueIndex {

    /** How often gathered marks are written. */
    public static final Duration FLUSH_PERIOD = Duration.ofMillis(250);

    private static final int PAGE = 1_000;

    private final ReactiveStringRedisTemplate redis;
    private final RedisGuard guard;
    private final QueueScripts scripts;
    private final Clock clock;
    private final Set<String> marks = ConcurrentHashMap.newKeySet();

    public DueIndex(ReactiveStringRedisTemplate redis, RedisGuard guard, QueueScripts scripts, Clock clock) {
        this.redis = redis;
        this.guard = guard;
        this.scripts = scripts;
        this.clock = clock;
    }

    /** Notes that the product's promotion may be due now; written with the next flush. */
    public void mark(String productId) {
        marks.add(productId);
    }

    /** Writes the marks gathered since the last call as due now, in one command. */
    public Mono<Void> flush() {
        if (marks.isEmpty()) {
            return Mono.empty();
        }
        List<String> batch = List.copyOf(marks);
        batch.forEach(marks::remove);
        double now = clock.millis();
        Set<ZSetOperations.TypedTuple<String>> due = new HashSet<>();
        batch.forEach(productId -> due.add(ZSetOperations.TypedTuple.of(productId, now)));
        return guard.guard(redis.opsForZSet().addAll(QueueKeys.DUE, due)).then()
                .doOnError(error -> marks.addAll(batch));
    }

    /** Products due by {@code until} (epoch ms) with the score they were due at, read in pages. */
    public Flux<ZSetOperations.TypedTuple<String>> due(long until) {
        Range<Double> due = Range.of(Range.Bound.unbounded(), Range.Bound.inclusive((double) until));
        return Flux.range(0, Integer.MAX_VALUE)
                .concatMap(page -> guard.guard(redis.opsForZSet()
                                .rangeByScoreWithScores(QueueKeys.DUE, due, Limit.limit().offset(page * PAGE).count(PAGE)))
                        .collectList(), 1)
                .takeUntil(entries -> entries.size() < PAGE)
                .concatMapIterable(entries -> entries);
    }

    /** Writes a pass's results back; a product marked due meanwhile keeps its mark. */
    public Mono<Long> reschedule(List<RescheduleScript.Entry> entries) {
        return scripts.reschedule().run(entries);
    }

    /** Adds products at a time, or moves them earlier; never later. */
    public Mono<Void> dueBy(Map<String, Long> at) {
        return scripts.markDue().run(at);
    }
}
