package io.queuegate.admission;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

import io.queuegate.support.TestClock;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A remembered pass lasts as long as the gateway's clock says, not the machine's; renewed before
 * its end, it outlives its ttl by the renewal's one round trip, never more.
 */
class ActiveCacheClockTest {

    private final TestClock clock = new TestClock(Instant.parse("2026-12-01T00:00:00Z"));
    private final ActiveCache cache = new ActiveCache(null, clock, Duration.ofMillis(300));

    @Test
    void aPassOutlivesRealTimeWhileTheGatewaysClockStands() {
        cache.remember("42", "alice");

        Awaitility.await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(2))
                .until(() -> cache.isActive("42", "alice"));
    }

    @Test
    void aPassEndsWhenTheGatewaysClockPassesItsTtl() {
        cache.remember("42", "alice");
        clock.advance(Duration.ofMillis(299));
        assertThat(cache.isActive("42", "alice")).isTrue();

        clock.advance(Duration.ofMillis(2));

        assertThat(cache.isActive("42", "alice")).isFalse();
    }

    @Test
    void aPassIsRenewedOnlyInItsLastFifthAndByOneRequest() {
        cache.remember("42", "alice");
        clock.advance(Duration.ofMillis(239));
        assertThat(cache.claimsRenewal("42", "alice")).as("60 ms before the end of 300").isFalse();

        clock.advance(Duration.ofMillis(1));

        assertThat(cache.claimsRenewal("42", "alice")).isTrue();
        assertThat(cache.claimsRenewal("42", "alice")).as("a second request while it is out").isFalse();
        assertThat(cache.isActive("42", "alice")).isTrue();
    }

    @Test
    void whileTheRenewalIsOutThePassOutlivesItsTtlAndEndsWithTheAnswer() {
        cache.remember("42", "alice");
        clock.advance(Duration.ofMillis(280));
        assertThat(cache.claimsRenewal("42", "alice")).isTrue();
        Sinks.One<Admission> redis = Sinks.one();
        AtomicReference<Admission> answered = new AtomicReference<>();
        cache.renewal("42", "alice", redis::asMono).subscribe(answered::set);

        clock.advance(Duration.ofMillis(400));
        assertThat(cache.isActive("42", "alice")).as("the pass's end came while Redis was asked").isTrue();
        assertThat(cache.claimsRenewal("42", "alice")).as("nothing to renew past the end").isFalse();

        // Redis answers that the session no longer holds: nothing is remembered again.
        redis.tryEmitEmpty();

        assertThat(answered.get()).isNull();
        assertThat(cache.isActive("42", "alice")).isFalse();
    }

    @Test
    void aRenewalThatConfirmsStartsAFreshPassFromItsAnswer() {
        cache.remember("42", "alice");
        clock.advance(Duration.ofMillis(290));
        assertThat(cache.claimsRenewal("42", "alice")).isTrue();
        Sinks.One<Admission> redis = Sinks.one();
        cache.renewal("42", "alice", redis::asMono).subscribe();
        clock.advance(Duration.ofMillis(50));

        cache.remember("42", "alice");
        redis.tryEmitValue(new Admission.Unavailable());

        clock.advance(Duration.ofMillis(299));
        assertThat(cache.isActive("42", "alice")).isTrue();
        clock.advance(Duration.ofMillis(1));
        assertThat(cache.isActive("42", "alice")).as("the renewed pass's own ttl, no more").isFalse();
    }

    @Test
    void aRenewalKeepsThePassNoLongerThanOneRoundTripPastItsEnd() {
        ActiveCache cache = new ActiveCache(null, clock, Duration.ofMillis(300), Duration.ofMillis(100));
        cache.remember("42", "alice");
        clock.advance(Duration.ofMillis(280));
        assertThat(cache.claimsRenewal("42", "alice")).isTrue();
        cache.renewal("42", "alice", Mono::never).subscribe();

        clock.advance(Duration.ofMillis(119));
        assertThat(cache.isActive("42", "alice")).as("99 ms past the end, Redis still asked").isTrue();
        clock.advance(Duration.ofMillis(1));

        assertThat(cache.isActive("42", "alice")).as("the round trip's bound, whatever Redis does").isFalse();
    }

    @Test
    void aRenewalWhoseRequestWentAwayUnsubscribedLapsesAndAnotherMayClaim() {
        ActiveCache cache = new ActiveCache(null, clock, Duration.ofMillis(300), Duration.ofMillis(100));
        cache.remember("42", "alice");
        clock.advance(Duration.ofMillis(280));
        assertThat(cache.claimsRenewal("42", "alice")).isTrue();
        clock.advance(Duration.ofMillis(130));
        cache.remember("42", "alice");
        clock.advance(Duration.ofMillis(280));

        assertThat(cache.claimsRenewal("42", "alice")).isTrue();
    }

    @Test
    void aReleaseHeardWhileRedisWasAskedIsNotUndoneByItsAnswer() {
        cache.remember("42", "alice");
        clock.advance(Duration.ofMillis(290));
        assertThat(cache.claimsRenewal("42", "alice")).isTrue();
        Sinks.One<Admission> redis = Sinks.one();
        cache.renewal("42", "alice", () -> redis.asMono().doOnNext(answer -> cache.remember("42", "alice")))
                .subscribe();

        // Redis confirmed the session, then the purchase's release is heard before the answer is.
        cache.forget("42", "alice");
        redis.tryEmitValue(new Admission.Unavailable());

        assertThat(cache.isActive("42", "alice")).isFalse();
    }

    @Test
    void aRoomClosedWhileAHoldersCheckWasOutIsNotUndoneByItsAnswer() {
        cache.remember("42", "alice");
        clock.advance(Duration.ofMillis(301));
        Sinks.One<Admission> redis = Sinks.one();
        cache.oneCheckAtATime("42", "alice", () -> redis.asMono().doOnNext(answer -> cache.remember("42", "alice")),
                other -> Mono.empty()).subscribe();

        cache.forget("42", ActiveCache.EVERYONE);
        redis.tryEmitValue(new Admission.Unavailable());

        assertThat(cache.isActive("42", "alice")).isFalse();
    }

    @Test
    void aReleaseHeardWhileTheRenewalIsOutEndsThePassAtOnce() {
        cache.remember("42", "alice");
        clock.advance(Duration.ofMillis(290));
        assertThat(cache.claimsRenewal("42", "alice")).isTrue();
        cache.renewal("42", "alice", Mono::never).subscribe();

        cache.forget("42", "alice");

        assertThat(cache.isActive("42", "alice")).isFalse();
    }
}
