package io.queuegate.admission;

import java.time.Duration;
import java.time.Instant;

import io.queuegate.admission.ActiveCache.Pass;
import io.queuegate.support.TestClock;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How one instance's passes age, are confirmed ahead of their end and end, on the gateway's clock
 * (no Redis here: {@link ActiveCacheTest} runs the confirmations through gateways).
 */
class ActiveCachePassesTest {

    private final TestClock clock = new TestClock(Instant.parse("2026-12-05T12:00:00Z"));

    // Not started: nothing here listens for releases, the tests forget by hand.
    private final ActiveCache cache = new ActiveCache(null, clock, Duration.ofSeconds(1));

    @Test
    void aPassIsConfirmedOnceInItsLastQuarterAndLastsItsSecond() {
        cache.remember("p", "alice");
        clock.advance(Duration.ofMillis(749));
        assertThat(cache.pass("p", "alice")).as("three quarters left").isEqualTo(Pass.HOLDS);
        clock.advance(Duration.ofMillis(1));
        assertThat(cache.pass("p", "alice")).isEqualTo(Pass.CONFIRM);
        assertThat(cache.pass("p", "alice")).as("asked for once").isEqualTo(Pass.HOLDS);
        clock.advance(Duration.ofMillis(249));
        assertThat(cache.pass("p", "alice")).isEqualTo(Pass.HOLDS);
        clock.advance(Duration.ofMillis(1));
        assertThat(cache.pass("p", "alice")).as("unconfirmed, it ends at its second").isEqualTo(Pass.NONE);
    }

    @Test
    void aConfirmationRenewsThePassFromWhenItWasSentNotPastTheSessionsEndOrEndsIt() {
        cache.remember("p", "alice");
        cache.remember("p", "bob");
        cache.remember("p", "cat");
        clock.advance(Duration.ofMillis(800));
        long sentAt = clock.millis();
        assertThat(cache.pass("p", "alice")).isEqualTo(Pass.CONFIRM);
        assertThat(cache.pass("p", "bob")).isEqualTo(Pass.CONFIRM);
        assertThat(cache.pass("p", "cat")).isEqualTo(Pass.CONFIRM);
        // The answers come 150 ms after the question.
        clock.advance(Duration.ofMillis(150));
        cache.confirmed("p", "alice", sentAt, Long.MAX_VALUE);
        cache.confirmed("p", "bob", sentAt, sentAt + 500);
        cache.ended("p", "cat");
        assertThat(cache.pass("p", "cat")).as("found not active").isEqualTo(Pass.NONE);
        clock.advance(Duration.ofMillis(349));
        assertThat(cache.pass("p", "bob")).isNotEqualTo(Pass.NONE);
        clock.advance(Duration.ofMillis(1));
        assertThat(cache.pass("p", "bob")).as("his session is over").isEqualTo(Pass.NONE);
        clock.advance(Duration.ofMillis(499));
        assertThat(cache.pass("p", "alice")).isNotEqualTo(Pass.NONE);
        clock.advance(Duration.ofMillis(1));
        assertThat(cache.pass("p", "alice")).as("a second after the question").isEqualTo(Pass.NONE);
    }

    @Test
    void anAnswerChangesOnlyThePassItWasAskedFor() {
        cache.remember("p", "alice");
        cache.remember("p", "bob");
        cache.remember("p", "cat");
        clock.advance(Duration.ofMillis(800));
        long sentAt = clock.millis();
        assertThat(cache.pass("p", "alice")).isEqualTo(Pass.CONFIRM);
        assertThat(cache.pass("p", "bob")).isEqualTo(Pass.CONFIRM);
        assertThat(cache.pass("p", "cat")).isEqualTo(Pass.CONFIRM);
        // While Redis answered: alice's release was heard, and so was an operator's change to
        // the product; cat's own request was answered by Redis and remembered afresh.
        cache.forget("p", "alice");
        cache.forget("p", ActiveCache.EVERYONE);
        cache.remember("p", "cat");
        cache.confirmed("p", "alice", sentAt, Long.MAX_VALUE);
        cache.confirmed("p", "bob", sentAt, Long.MAX_VALUE);
        cache.ended("p", "cat");
        assertThat(cache.pass("p", "alice")).isEqualTo(Pass.NONE);
        assertThat(cache.pass("p", "bob")).isEqualTo(Pass.NONE);
        assertThat(cache.pass("p", "cat")).as("the fresher answer stands").isEqualTo(Pass.HOLDS);
    }

    @Test
    void aPassOfAnotherProductOrUserIsNotConfirmedByThisOne() {
        cache.remember("p", "alice");
        clock.advance(Duration.ofMillis(800));
        assertThat(cache.pass("q", "alice")).isEqualTo(Pass.NONE);
        cache.confirmed("q", "alice", clock.millis(), Long.MAX_VALUE);
        cache.confirmed("p", "bob", clock.millis(), Long.MAX_VALUE);
        assertThat(cache.pass("q", "alice")).isEqualTo(Pass.NONE);
        assertThat(cache.pass("p", "bob")).as("a confirmation brings no pass of its own").isEqualTo(Pass.NONE);
        assertThat(cache.pass("p", "alice")).as("nor asks for hers").isEqualTo(Pass.CONFIRM);
    }

    @Test
    void aTtlTooShortForARoundTripConfirmsNothing() {
        ActiveCache brief = new ActiveCache(null, clock, Duration.ofMillis(399));
        brief.remember("p", "alice");
        clock.advance(Duration.ofMillis(398));
        assertThat(brief.pass("p", "alice")).isEqualTo(Pass.HOLDS);
        clock.advance(Duration.ofMillis(1));
        assertThat(brief.pass("p", "alice")).isEqualTo(Pass.NONE);
    }
}
