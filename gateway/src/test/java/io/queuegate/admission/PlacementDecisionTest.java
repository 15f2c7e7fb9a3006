package io.queuegate.admission;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.queuegate.challenge.JoinGate;
import io.queuegate.config.QueuePolicy;
import io.queuegate.config.QueueSettings;
import io.queuegate.invites.InvitationCheck;
import io.queuegate.room.Joined;
import io.queuegate.room.Placement;
import io.queuegate.token.WaitToken;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The mapping from the join script's answer to a decision, in memory: no Redis, no clock, no signing key. */
class PlacementDecisionTest {

    private static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");

    private static final QueuePolicy POLICY = QueuePolicy.from(QueueSettings.EMPTY);

    private final List<String> signed = new ArrayList<>();

    private final List<Boolean> priced = new ArrayList<>();

    private Admission decide(Caller caller, Joined joined, String presentedToken, long limitedFor,
            InvitationCheck invitation, boolean solved) {
        return PlacementDecision.decide(new PlacementDecision.Facts(caller, joined, POLICY, invitation, "claim-1",
                presentedToken, limitedFor, false, solved, NOW), (joinedAt, ticket, sessionEnd) -> {
                    String token = "token(" + joinedAt + "," + ticket + "," + sessionEnd + ")";
                    signed.add(token);
                    return token;
                }, ticketSpent -> {
                    priced.add(ticketSpent);
                    return new JoinGate.Price(null, null);
                });
    }

    private Admission decide(Caller caller, Joined joined) {
        return decide(caller, joined, null, 0, InvitationCheck.ABSENT, false);
    }

    private static Joined joined(Placement.State state, long rank, boolean enqueued, Long ticket) {
        return new Joined(new Placement(state, rank, 0), enqueued, ticket, null);
    }

    private static Caller newcomer() {
        return new Caller("p1", "u1", true, null);
    }

    private static Caller waitingSince(Instant joinedAt) {
        WaitToken token = new WaitToken("p1", "u1", true, NOW.minusSeconds(60), NOW.plusSeconds(3600), joinedAt, 7L,
                null);
        return new Caller("p1", "u1", true, null, token, true);
    }

    @Test
    void aNewcomerAdmittedAtOnceGetsASessionTokenAndTheClaim() {
        Joined joined = new Joined(new Placement(Placement.State.ACTIVE, 0, 0), true, null, null,
                NOW.plusSeconds(600).toEpochMilli());

        Admission decision = decide(newcomer(), joined);

        assertThat(decision).isInstanceOf(Admission.Active.class);
        Admission.Active active = (Admission.Active) decision;
        assertThat(active.issuedToken()).isEqualTo("token(null,null," + NOW.plusSeconds(600) + ")");
        assertThat(active.claim()).isEqualTo("claim-1");
        assertThat(active.madePlace()).isTrue();
    }

    @Test
    void aTokenThatSaysWaitingIsSignedAgainWhenItsTurnCame() {
        Caller caller = waitingSince(NOW.minusSeconds(30));
        Joined joined = joined(Placement.State.ACTIVE, 0, false, null);

        Admission.Active active = (Admission.Active) decide(caller, joined);

        assertThat(active.issuedToken()).isNotNull();
        assertThat(PlacementDecision.waitEnded(caller, joined)).isTrue();
        assertThat(PlacementDecision.waited(caller, NOW)).hasSeconds(30);
    }

    @Test
    void aPlaceOfASignedInShopperIsNotLetThroughOnTheirTokenAlone() {
        Caller caller = new Caller("p1", "alice", false, null, waitingSince(null).token(), false);
        Joined joined = joined(Placement.State.ACTIVE, 0, false, null);

        Admission decision = decide(caller, joined);

        assertThat(decision).isInstanceOfSatisfying(Admission.Rejected.class,
                rejected -> assertThat(rejected.reason()).isEqualTo(Refusal.WRONG_USER));
        assertThat(PlacementDecision.waitEnded(caller, joined)).isFalse();
        assertThat(signed).isEmpty();
    }

    @Test
    void aNewPlaceInLineIsSignedFromNowAndKeepsItsTicket() {
        Admission.Waiting waiting = (Admission.Waiting) decide(newcomer(),
                joined(Placement.State.WAITING, 42, true, 9L));

        assertThat(waiting.rank()).isEqualTo(42);
        assertThat(waiting.token()).isEqualTo("token(" + NOW + ",9,null)");
        assertThat(waiting.newToken()).isTrue();
        assertThat(waiting.estimatedWaitSeconds()).isNull();
        assertThat(waiting.retryAfterSeconds()).isEqualTo(RetryAfter.of(42, null, POLICY.abandonAfter()));
    }

    @Test
    void aWaitKeepsItsJoinTimeAcrossAnswers() {
        Instant joinedAt = NOW.minusSeconds(120);

        Admission.Waiting waiting = (Admission.Waiting) decide(waitingSince(joinedAt),
                joined(Placement.State.WAITING, 3, false, 7L));

        assertThat(waiting.token()).isEqualTo("token(" + joinedAt + ",7,null)");
    }

    @Test
    void anAnswerFromMemoryHandsBackThePresentedTokenUnsigned() {
        Admission.Waiting waiting = (Admission.Waiting) decide(waitingSince(NOW), joined(Placement.State.WAITING, 3,
                false, 7L), "presented", 0, InvitationCheck.ABSENT, false);

        assertThat(waiting.token()).isEqualTo("presented");
        assertThat(waiting.newToken()).isFalse();
        assertThat(signed).isEmpty();
    }

    @Test
    void refusalsSayWhyAndWhenToComeBack() {
        assertThat(((Admission.Rejected) decide(newcomer(), joined(Placement.State.DRAINING, 0, false, null)))
                .retryAfterSeconds()).isEqualTo(60);
        assertThat(((Admission.Rejected) decide(newcomer(), joined(Placement.State.SESSION_ENDED, 0, false, null)))
                .reason()).isEqualTo(Refusal.SESSION_ENDED);
        assertThat(((Admission.Rejected) decide(newcomer(), joined(Placement.State.COMPLETING, 0, false, null)))
                .reason()).isEqualTo(Refusal.COMPLETION_IN_PROGRESS);
        assertThat(((Admission.Rejected) decide(newcomer(), joined(Placement.State.INVITE_USED, 0, false, null)))
                .reason()).isEqualTo(Refusal.INVITE_USED);
        Admission.Rejected soldOut = (Admission.Rejected) decide(newcomer(),
                joined(Placement.State.SOLD_OUT, 0, false, 4L));
        assertThat(soldOut.reason()).isEqualTo(Refusal.SOLD_OUT);
        assertThat(soldOut.holdsPlace()).isTrue();
        Admission.Rejected limited = (Admission.Rejected) decide(newcomer(),
                joined(Placement.State.JOIN_LIMITED, 0, false, null), null, 1_001, InvitationCheck.ABSENT, false);
        assertThat(limited.reason()).isEqualTo(Refusal.TOO_MANY_JOINS);
        assertThat(limited.retryAfterSeconds()).isEqualTo(2);
    }

    @Test
    void aRefusedInvitationIsNamedAsSuch() {
        Admission.Rejected rejected = (Admission.Rejected) decide(newcomer(),
                joined(Placement.State.INVITE_REQUIRED, 0, false, null), null, 0,
                new InvitationCheck.Invalid("expired"), false);

        assertThat(rejected.reason()).isEqualTo(Refusal.INVITE_INVALID);
        assertThat(rejected.detail()).isEqualTo("expired");
        assertThat(((Admission.Rejected) decide(newcomer(), joined(Placement.State.INVITE_REQUIRED, 0, false, null)))
                .reason()).isEqualTo(Refusal.INVITE_REQUIRED);
    }

    @Test
    void aUsedSolutionPaysAgainAndAWaitTicketUsedWithoutOneIsSpent() {
        Admission.Challenged withSolution = (Admission.Challenged) decide(newcomer(),
                joined(Placement.State.CHALLENGE_USED, 0, false, null), null, 0, InvitationCheck.ABSENT, true);
        Admission.Challenged withTicket = (Admission.Challenged) decide(newcomer(),
                joined(Placement.State.CHALLENGE_USED, 0, false, null));
        Admission.Challenged required = (Admission.Challenged) decide(newcomer(),
                joined(Placement.State.CHALLENGE_REQUIRED, 0, false, null));

        assertThat(withSolution.reason()).isEqualTo(Refusal.CHALLENGE_USED);
        assertThat(withTicket.reason()).isEqualTo(Refusal.CHALLENGE_USED);
        assertThat(required.reason()).isEqualTo(Refusal.CHALLENGE_REQUIRED);
        assertThat(priced).containsExactly(false, true, false);
    }
}
