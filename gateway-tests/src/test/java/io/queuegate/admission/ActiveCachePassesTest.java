package io.queuegate.admission;

import java.time.Duration;
import java.time.Instant;

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
        assertThat(cache.confirmationDue("p", "alice")).as("three quarters left").isFalse();
        clock.advance(Duration.ofMillis(1));
        assertThat(cache.confirmationDue("p", "alice")).isTrue();
        assertThat(cache.confirmationDue("p", "alice")).as("asked for once").isFalse();
        clock.advance(Duration.ofMillis(249));
        assertThat(cache.isActive("p", "alice")).isTrue();
        clock.advance(Duration.ofMillis(1));
        assertThat(cache.isActive("p", "alice")).as("unconfirmed, it ends at its second").isFalse();
        assertThat(cache.confirmationDue("p", "alice")).isFalse();
    }

    @Test
    void aConfirmationRenewsThePassFromItsAnswerOrEndsIt() {
        cache.remember("p", "alice");
        cache.remember("p", "bob");
        clock.advance(Duration.ofMillis(800));
        assertThat(cache.confirmationDue("p", "alice")).isTrue();
        assertThat(cache.confirmationDue("p", "bob")).isTrue();
        clock.advance(Duration.ofMillis(100));
        cache.confirmed("p", "alice", true);
        cache.confirmed("p", "bob", false);
        assertThat(cache.isActive("p", "bob")).as("found not active").isFalse();
        clock.advance(Duration.ofMillis(999));
        assertThat(cache.isActive("p", "alice")).isTrue();
        clock.advance(Duration.ofMillis(1));
        assertThat(cache.isActive("p", "alice")).as("a second after the answer").isFalse();
    }

    @Test
    void aPassForgottenWhileItsConfirmationWasOutStaysForgotten() {
        cache.remember("p", "alice");
        cache.remember("p", "bob");
        clock.advance(Duration.ofMillis(800));
        assertThat(cache.confirmationDue("p", "alice")).isTrue();
        assertThat(cache.confirmationDue("p", "bob")).isTrue();
        // Releases heard while Redis answered: alice's own, then everyone's (an operator's change).
        cache.forget("p", "alice");
        cache.confirmed("p", "alice", true);
        cache.forget("p", ActiveCache.EVERYONE);
        cache.confirmed("p", "bob", true);
        assertThat(cache.isActive("p", "alice")).isFalse();
        assertThat(cache.isActive("p", "bob")).isFalse();
        cache.forgetAll();
    }

    @Test
    void aPassOfAnotherProductOrUserIsNotConfirmedByThisOne() {
        cache.remember("p", "alice");
        clock.advance(Duration.ofMillis(800));
        assertThat(cache.confirmationDue("q", "alice")).isFalse();
        assertThat(cache.confirmationDue("p", "bob")).isFalse();
        cache.confirmed("q", "alice", true);
        cache.confirmed("p", "bob", true);
        assertThat(cache.isActive("q", "alice")).isFalse();
        assertThat(cache.isActive("p", "bob")).as("a confirmation brings no pass of its own").isFalse();
    }
}
