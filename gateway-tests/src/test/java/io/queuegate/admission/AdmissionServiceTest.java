package io.queuegate.admission;

import java.time.Duration;

import io.queuegate.config.JoinChallenge;
import io.queuegate.config.QueuePolicy;
import io.queuegate.config.RedisFailureMode;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The admission decision on its own, against the in-memory store and a clock the test moves: what
 * is decided without asking the store, what always asks it, and what a store that cannot answer
 * turns into. The same decisions through HTTP and Redis are in AdmissionFlowTest and its neighbours.
 */
class AdmissionServiceTest {

    private final InMemoryAdmission admission = new InMemoryAdmission();

    @Test
    void aTokenHolderFoundActiveInTheLastSecondPassesWithoutAskingTheStore() {
        QueuePolicy policy = InMemoryAdmission.policy(1);
        Admission.Active first = (Admission.Active) admission.admit(policy, "alice", null, false);
        String token = first.issuedToken();
        assertThat(token).isNotNull();
        int calls = admission.store.calls();

        admission.clock.advance(Duration.ofMillis(700));
        assertThat(admission.admit(policy, "alice", token, false)).isInstanceOf(Admission.Active.class);
        assertThat(admission.store.calls()).as("answered from the active cache").isEqualTo(calls);

        admission.clock.advance(Duration.ofMillis(400));
        Admission.Active later = (Admission.Active) admission.admit(policy, "alice", token, false);
        assertThat(admission.store.calls()).as("more than a second since the store said so").isEqualTo(calls + 1);
        assertThat(later.issuedToken()).as("the token still names the same session").isNull();
    }

    @Test
    void inThePassesLastFifthOneRequestRenewsItAndTheNextPassesOnTheRenewal() {
        QueuePolicy policy = InMemoryAdmission.policy(1);
        String token = ((Admission.Active) admission.admit(policy, "alice", null, false)).issuedToken();
        int calls = admission.store.calls();

        admission.clock.advance(Duration.ofMillis(900));
        assertThat(admission.admit(policy, "alice", token, false)).isInstanceOf(Admission.Active.class);
        assertThat(admission.store.calls()).as("the renewal asked the store").isEqualTo(calls + 1);

        admission.clock.advance(Duration.ofMillis(500));
        assertThat(admission.admit(policy, "alice", token, false)).isInstanceOf(Admission.Active.class);
        assertThat(admission.store.calls()).as("on the renewed pass, 1.4 s after the first").isEqualTo(calls + 1);
    }

    @Test
    void aCompletingRequestAlwaysAsksTheStoreAndHoldsTheCompletionClaim() {
        QueuePolicy policy = InMemoryAdmission.policy(1);
        String token = ((Admission.Active) admission.admit(policy, "alice", null, false)).issuedToken();
        int calls = admission.store.calls();

        Admission.Active buying = (Admission.Active) admission.admit(policy, "alice", token, true);
        assertThat(buying.claim()).isNotBlank();
        assertThat(admission.store.calls()).isEqualTo(calls + 1);

        Admission second = admission.admit(policy, "alice", token, true);
        assertThat(second).isInstanceOfSatisfying(Admission.Rejected.class,
                rejected -> assertThat(rejected.reason()).isEqualTo(Refusal.COMPLETION_IN_PROGRESS));
    }

    @Test
    void aCallerWithNeitherTokenNorIdentityIsAskedForProofOfWorkWithoutTouchingTheStore() {
        QueuePolicy policy = InMemoryAdmission.policy(1, JoinChallenge.ANONYMOUS, RedisFailureMode.CLOSED);
        assertThat(admission.admit(policy, null, null, false)).isInstanceOfSatisfying(Admission.Challenged.class,
                challenged -> {
                    assertThat(challenged.reason()).isEqualTo(Refusal.CHALLENGE_REQUIRED);
                    assertThat(challenged.challenge()).isNotNull();
                });
        assertThat(admission.store.calls()).isZero();
        assertThat(admission.admit(policy, "alice", null, false)).as("an identified caller pays nothing")
                .isInstanceOf(Admission.Active.class);
    }

    @Test
    void aWhollyNewCallerPastTheAddressLimitIsTurnedAwayWithoutTouchingTheStore() {
        InMemoryAdmission limited = new InMemoryAdmission(2, 1_000);
        QueuePolicy policy = InMemoryAdmission.policy(1);
        assertThat(limited.admit(policy, null, null, false)).isInstanceOf(Admission.Active.class);
        assertThat(limited.admit(policy, null, null, false)).isInstanceOf(Admission.Waiting.class);
        int calls = limited.store.calls();
        assertThat(limited.admit(policy, null, null, false)).isInstanceOfSatisfying(Admission.Rejected.class,
                rejected -> {
                    assertThat(rejected.reason()).isEqualTo(Refusal.TOO_MANY_JOINS);
                    assertThat(rejected.retryAfterSeconds()).isPositive();
                });
        assertThat(limited.store.calls()).isEqualTo(calls);
        assertThat(limited.admit(policy, null, null, false, "198.51.100.9")).as("another address")
                .isInstanceOf(Admission.Waiting.class);
    }

    @Test
    void onlyAPlaceMadeCountsAgainstTheJoinLimits() {
        InMemoryAdmission limited = new InMemoryAdmission(1_000, 1);
        QueuePolicy policy = InMemoryAdmission.policy(1, Duration.ofSeconds(30), JoinChallenge.NONE,
                RedisFailureMode.CLOSED);
        assertThat(limited.admit(policy, "alice", null, false)).isInstanceOf(Admission.Active.class);
        // Asking again, with or without the token, holds the same place and makes none.
        for (int i = 0; i < 3; i++) {
            assertThat(limited.admit(policy, "alice", null, false)).isInstanceOf(Admission.Active.class);
        }
        assertThat(limited.admit(policy, "bob", null, false)).isInstanceOf(Admission.Waiting.class);
        // Alice's session ends within the minute: coming back would make a new place, past her one a minute.
        limited.clock.advance(Duration.ofSeconds(31));
        assertThat(limited.admit(policy, "alice", null, false)).isInstanceOfSatisfying(Admission.Rejected.class,
                rejected -> assertThat(rejected.reason()).isEqualTo(Refusal.TOO_MANY_JOINS));
    }

    @Test
    void aWaitingShopperIsAdmittedOnceAPlaceFreesAndGetsATokenThatSaysSo() {
        QueuePolicy policy = InMemoryAdmission.policy(1);
        Admission.Active alice = (Admission.Active) admission.admit(policy, "alice", null, false);
        Admission.Waiting bob = (Admission.Waiting) admission.admit(policy, "bob", null, false);
        assertThat(bob.rank()).isEqualTo(1);

        admission.clock.advance(Duration.ofSeconds(30));
        admission.sessions.sold(alice.caller(), "products", null, 0).block();
        Admission.Active admitted = (Admission.Active) admission.admit(policy, "bob", bob.token(), false);
        assertThat(admitted.issuedToken()).as("the waiting token is replaced by an admitted one").isNotNull();
        assertThat(admission.tokens.verify(admitted.issuedToken()).joinedAt()).isNull();
        assertThat(admission.admittedAfterWaiting).containsExactly("bob after 30 s");
    }

    @Test
    void whenTheStoreCannotAnswerTheRouteFailsAsItSays() {
        admission.store.failing(true);
        assertThat(admission.admit(InMemoryAdmission.policy(1, JoinChallenge.NONE, RedisFailureMode.CLOSED), "alice",
                null, false)).isInstanceOf(Admission.Unavailable.class);
        assertThat(admission.admit(InMemoryAdmission.policy(1, JoinChallenge.NONE, RedisFailureMode.OPEN), "alice",
                null, false)).isInstanceOf(Admission.Unchecked.class);
    }
}
