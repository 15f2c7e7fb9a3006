package io.queuegate.admission;

import java.time.Duration;

import io.queuegate.config.JoinChallenge;
import io.queuegate.config.QueuePolicy;
import io.queuegate.config.RedisFailureMode;
import io.queuegate.room.Placement;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What happens to a place after the admission decision, on its own against the in-memory store: a
 * completion and a leave end the pass this instance remembers at once, a refused purchase gives its
 * claim back, and a status answer renews only the tokens that are due.
 */
class SessionsTest {

    private final InMemoryAdmission admission = new InMemoryAdmission();
    private final QueuePolicy policy = InMemoryAdmission.policy(1);

    @Test
    void aCompletionEndsTheRememberedPassAtOnce() {
        Admission.Active alice = (Admission.Active) admission.admit(policy, "alice", null, false);
        String token = alice.issuedToken();
        admission.admit(policy, "bob", null, false);

        admission.sessions.sold(alice.caller(), "products", null, 0).block();
        int calls = admission.store.calls();
        // Within the second the pass was remembered for: the store is asked whether her session
        // holds, it does not, the long way decides, and she is at the back.
        Admission again = admission.admit(policy, "alice", token, false);
        assertThat(admission.store.calls()).isEqualTo(calls + 2);
        assertThat(again).isInstanceOfSatisfying(Admission.Waiting.class, waiting -> assertThat(waiting.rank()).isEqualTo(1));
    }

    @Test
    void aLeaveGivesThePlaceToTheNextAndForgetsThePass() {
        Admission.Active alice = (Admission.Active) admission.admit(policy, "alice", null, false);
        Admission.Waiting bob = (Admission.Waiting) admission.admit(policy, "bob", null, false);
        assertThat(admission.sessions.leave(alice.caller()).block()).isTrue();
        assertThat(admission.sessions.leave(alice.caller()).block()).isFalse();
        assertThat(admission.admit(policy, "bob", bob.token(), false)).isInstanceOf(Admission.Active.class);
        // Within the second her pass was remembered for: the store is asked whether her session
        // holds, it does not, the long way decides, and her place is gone.
        int calls = admission.store.calls();
        assertThat(admission.admit(policy, "alice", alice.issuedToken(), false)).isInstanceOf(Admission.Waiting.class);
        assertThat(admission.store.calls()).isEqualTo(calls + 2);
    }

    @Test
    void aTokenWhoseSessionHasEndedTakesTheLongWayWithoutAskingWhetherItHolds() {
        QueuePolicy policy = InMemoryAdmission.policy(1, Duration.ofMinutes(10), JoinChallenge.NONE,
                RedisFailureMode.CLOSED);
        String token = ((Admission.Active) admission.admit(policy, "alice", null, false)).issuedToken();
        admission.admit(policy, "bob", null, false);

        admission.clock.advance(Duration.ofMinutes(10));
        int calls = admission.store.calls();
        // The session her token names ended: no store could confirm it, so only the long way is
        // asked, which admits bob and puts her at the back.
        Admission again = admission.admit(policy, "alice", token, false);
        assertThat(admission.store.calls()).isEqualTo(calls + 1);
        assertThat(again).isInstanceOfSatisfying(Admission.Waiting.class, waiting -> assertThat(waiting.rank()).isEqualTo(1));
    }

    @Test
    void aRefusedPurchaseGivesTheClaimBackForTheNextTry() {
        String token = ((Admission.Active) admission.admit(policy, "alice", null, false)).issuedToken();
        Admission.Active buying = (Admission.Active) admission.admit(policy, "alice", token, true);
        assertThat(admission.admit(policy, "alice", token, true)).isInstanceOf(Admission.Rejected.class);

        admission.sessions.completionRefused(buying.caller(), buying.claim()).block();
        assertThat(admission.admit(policy, "alice", token, true)).isInstanceOf(Admission.Active.class);
    }

    @Test
    void aStatusAnswerRenewsATokenOnlyWhenItIsDue() {
        // Sessions longer than the token's renewal period, so Bob still waits when it is due.
        QueuePolicy policy = InMemoryAdmission.policy(1, Duration.ofHours(3), JoinChallenge.NONE,
                RedisFailureMode.CLOSED);
        admission.admit(policy, "alice", null, false);
        Admission.Waiting bob = (Admission.Waiting) admission.admit(policy, "bob", null, false);
        Caller caller = new CallerResolver(admission.tokens).resolve("42", "bob",
                new PresentedToken(bob.token(), false, false));

        Sessions.Standing now = admission.sessions.status(caller).block();
        assertThat(now.placement().state()).isEqualTo(Placement.State.WAITING);
        assertThat(now.placement().rank()).isEqualTo(1);
        assertThat(now.newToken()).as("not due: the presented token stays").isNull();

        admission.clock.advance(Duration.ofMinutes(61));
        Sessions.Standing later = admission.sessions.status(caller(bob.token())).block();
        assertThat(later.placement().state()).isEqualTo(Placement.State.WAITING);
        assertThat(later.newToken()).as("past half the token's lifetime").isNotNull();
        assertThat(admission.tokens.verify(later.newToken()).ticket()).isEqualTo(caller.ticket());
    }

    private Caller caller(String token) {
        return new CallerResolver(admission.tokens).resolve("42", "bob", new PresentedToken(token, false, false));
    }
}
