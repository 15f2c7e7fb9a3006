package io.queuegate.admission;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import io.queuegate.support.TestClock;

import org.junit.jupiter.api.Test;

import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The active cache's one check at a time, driven by hand: whatever way the first request's check
 * ends, the requests that waited on it go on, and the holder's next request is not held back.
 */
class OneCheckAtATimeTest {

    private final ActiveCache cache = new ActiveCache(null, new TestClock(Instant.parse("2026-12-01T00:00:00Z")),
            Duration.ofSeconds(1));
    private final Admission answer = new Admission.Unavailable();
    private final List<Optional<Admission>> heardByWaiters = new ArrayList<>();
    private final AtomicInteger checks = new AtomicInteger();

    @Test
    void theOthersWaitForTheFirstChecksAnswerAndHearIt() {
        Sinks.One<Admission> redis = Sinks.one();
        List<Admission> answers = new ArrayList<>();
        cache.oneCheckAtATime("42", "alice", () -> check(redis.asMono()), this::waited).subscribe(answers::add);
        for (int i = 0; i < 3; i++) {
            cache.oneCheckAtATime("42", "alice", () -> check(Mono.never()), this::waited).subscribe(answers::add);
        }
        assertThat(checks).hasValue(1);
        assertThat(heardByWaiters).isEmpty();

        redis.tryEmitValue(answer);

        assertThat(heardByWaiters).containsExactly(Optional.of(answer), Optional.of(answer), Optional.of(answer));
        assertThat(answers).hasSize(4);
    }

    @Test
    void theFirstRequestGoneWithoutAnAnswerLetsTheOthersGoOn() {
        Disposable first = cache.oneCheckAtATime("42", "alice", () -> check(Mono.never()), this::waited).subscribe();
        cache.oneCheckAtATime("42", "alice", () -> check(Mono.never()), this::waited).subscribe();

        first.dispose();

        assertThat(heardByWaiters).containsExactly(Optional.empty());
        assertThatTheNextRequestChecksAtOnce();
    }

    @Test
    void aCheckThatThrowsLetsTheOthersGoOn() {
        cache.oneCheckAtATime("42", "alice", () -> {
            throw new IllegalStateException("broken");
        }, this::waited).subscribe(answer -> { }, error -> { });

        assertThatTheNextRequestChecksAtOnce();
    }

    @Test
    void aFailedCheckLetsTheOthersGoOn() {
        Sinks.One<Admission> redis = Sinks.one();
        cache.oneCheckAtATime("42", "alice", () -> check(redis.asMono()), this::waited).subscribe(answer -> { },
                error -> { });
        cache.oneCheckAtATime("42", "alice", () -> check(Mono.never()), this::waited).subscribe();

        redis.tryEmitError(new IllegalStateException("Redis went away"));

        assertThat(heardByWaiters).containsExactly(Optional.empty());
        assertThatTheNextRequestChecksAtOnce();
    }

    @Test
    void anotherHolderNeverWaits() {
        cache.oneCheckAtATime("42", "alice", () -> check(Mono.never()), this::waited).subscribe();
        cache.oneCheckAtATime("42", "bob", () -> check(Mono.never()), this::waited).subscribe();
        cache.oneCheckAtATime("43", "alice", () -> check(Mono.never()), this::waited).subscribe();

        assertThat(checks).hasValue(3);
        assertThat(heardByWaiters).isEmpty();
    }

    private void assertThatTheNextRequestChecksAtOnce() {
        int before = checks.get();
        List<Admission> answers = new ArrayList<>();
        cache.oneCheckAtATime("42", "alice", () -> check(Mono.just(answer)), this::waited).subscribe(answers::add);
        assertThat(checks).hasValue(before + 1);
        assertThat(answers).containsExactly(answer);
    }

    private Mono<Admission> check(Mono<Admission> redis) {
        checks.incrementAndGet();
        return redis;
    }

    private Mono<Admission> waited(Optional<Admission> answered) {
        heardByWaiters.add(answered);
        return Mono.just(answer);
    }
}
