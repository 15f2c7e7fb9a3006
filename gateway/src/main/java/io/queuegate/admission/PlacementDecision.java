package io.queuegate.admission;

import java.time.Duration;
import java.time.Instant;

import io.queuegate.challenge.JoinGate;
import io.queuegate.config.QueuePolicy;
import io.queuegate.config.RedisFailureMode;
import io.queuegate.invites.InvitationCheck;
import io.queuegate.room.Invite;
import io.queuegate.room.Joined;
import io.queuegate.room.Placement;
import io.queuegate.token.WaitToken;

/**
 * Turns the join script's answer (a {@link Placement}) into the waiting room's decision
 * ({@link Admission}). Nothing here reads a clock, counts, or tells anyone: what a decision costs
 * (events, remembered passes, join limits) is the {@link AdmissionService}'s to pay, and the two
 * things a decision may need made, a signed token and a fresh challenge, come from the functions it
 * is handed, so the mapping is tested in memory.
 */
public final class PlacementDecision {

    /** Signs a token for the caller; see {@link AdmissionService}. */
    @FunctionalInterface
    public interface Signer {

        /** @param sessionEnd when the caller's session ends, for an admitted caller; else {@code null} */
        String sign(Instant joinedAt, Long ticket, Instant sessionEnd);
    }

    /** What a new place costs now ({@link JoinGate#fresh}). */
    @FunctionalInterface
    public interface Pricer {

        JoinGate.Price fresh(boolean ticketSpent);
    }

    /**
     * What the decision is made of.
     *
     * @param claim the id of the completion claim the join took if it answers active, else {@code null}
     * @param presentedToken the caller's token when its answer comes from this instance's memory
     *                       (it still says the same, so it is not signed again), else {@code null}
     * @param limitedFor how long until the caller may make another place (0: now)
     * @param otherEpoch whether the caller's token is of another epoch of Redis's data
     * @param solved whether the request carried a proof-of-work solution
     * @param now the gateway's time
     */
    public record Facts(Caller caller, Joined joined, QueuePolicy policy, InvitationCheck invitation, String claim,
            String presentedToken, long limitedFor, boolean otherEpoch, boolean solved, Instant now) {
    }

    private PlacementDecision() {
    }

    /** The decision for {@code facts}, signing and pricing through the functions given. */
    public static Admission decide(Facts facts, Signer signer, Pricer pricer) {
        QueuePolicy policy = facts.policy();
        Joined joined = facts.joined();
        return switch (joined.placement().state()) {
            case ACTIVE -> active(facts, signer);
            // A wait ticket used already (another instance took it, or a replay) is spent here too.
            case CHALLENGE_USED -> new Admission.Challenged(Refusal.CHALLENGE_USED, null, pricer.fresh(!facts.solved()));
            case CHALLENGE_REQUIRED -> new Admission.Challenged(Refusal.CHALLENGE_REQUIRED, null, pricer.fresh(false));
            case JOIN_LIMITED -> tooManyJoins(facts.limitedFor());
            case SESSION_ENDED -> new Admission.Rejected(Refusal.SESSION_ENDED, null, false, 0);
            case COMPLETING -> new Admission.Rejected(Refusal.COMPLETION_IN_PROGRESS, null, false, 0);
            case DRAINING -> new Admission.Rejected(Refusal.QUEUE_CLOSED, null, false, 60);
            case SALE_ENDED -> new Admission.Rejected(Refusal.SALE_ENDED, policy.closesAt() == null ? null
                    : "the sale of this product ended at " + policy.closesAt(), false, 0);
            case SOLD_OUT -> new Admission.Rejected(Refusal.SOLD_OUT, null, false, 0, joined.ticket() != null);
            case ROOM_CLOSED -> new Admission.Rejected(Refusal.ROOM_CLOSED, null, false,
                    RetryAfter.whileClosed(policy.abandonAfter()));
            case INVITE_REQUIRED -> refused(facts.invitation());
            case INVITE_USED -> new Admission.Rejected(Refusal.INVITE_USED, null, false, 0);
            default -> waiting(facts, signer);
        };
    }

    /**
     * Whether an active answer ends a wait: a token that says "waiting" (jat) on an active caller
     * waited until now. A new ticket in this very call means the old wait was lost (expired, left),
     * not ended.
     */
    public static boolean waitEnded(Caller caller, Joined joined) {
        return caller.mayForward() && joined.placement().state() == Placement.State.ACTIVE
                && caller.joinedAt() != null && !joined.enqueued();
    }

    /** How long the ended wait took, from the token's join time to {@code now}. */
    static Duration waited(Caller caller, Instant now) {
        Duration waited = Duration.between(caller.joinedAt(), now);
        return waited.isNegative() ? Duration.ZERO : waited;
    }

    private static Admission active(Facts facts, Signer signer) {
        Caller caller = facts.caller();
        Joined joined = facts.joined();
        if (!caller.mayForward()) {
            // The place of a signed-in shopper is let through only with that shopper's identity;
            // their token alone was enough to wait.
            return new Admission.Rejected(Refusal.WRONG_USER,
                    "this place belongs to a signed-in shopper: sign in as them to go through", false, 0);
        }
        // A token that says "waiting", is of another epoch, or names another end of the session
        // (or none: signed by the release before) is signed again: after a loss it proves the session.
        Long sessionEnd = joined.sessionEnd();
        boolean needsToken = !caller.hasToken() || caller.joinedAt() != null || facts.otherEpoch()
                || (sessionEnd != null && !namesSession(caller.token(), sessionEnd));
        return new Admission.Active(caller, needsToken ? signer.sign(null, null,
                sessionEnd == null ? null : Instant.ofEpochMilli(sessionEnd)) : null, facts.claim(), joined.enqueued());
    }

    private static Admission waiting(Facts facts, Signer signer) {
        Caller caller = facts.caller();
        Joined joined = facts.joined();
        QueuePolicy policy = facts.policy();
        Placement placement = joined.placement();
        Instant now = facts.now();
        // A fresh token with every answer from Redis, so a user who keeps polling never outlives
        // it. It keeps the join time across answers; a new ticket starts the wait anew.
        String presented = facts.presentedToken();
        String token = presented;
        if (token == null) {
            Instant joinedAt = joined.enqueued() || caller.joinedAt() == null ? now : caller.joinedAt();
            token = signer.sign(joinedAt, joined.ticket(), null);
        }
        if (placement.state() == Placement.State.PRE_QUEUE) {
            return new Admission.Waiting(caller, placement.rank(), token, presented == null, null, policy.opensAt(),
                    RetryAfter.beforeOpening(Duration.between(now, policy.opensAt()), policy.abandonAfter()),
                    joined.seedCommitment(),
                    RetryAfter.comeBackBy(policy.opensAt(), policy.abandonAfter(), policy.arrivalTtl()), joined.stock());
        }
        Long estimate = WaitEstimate.seconds(placement.rank(), placement.admissionRate());
        return new Admission.Waiting(caller, placement.rank(), token, presented == null, estimate, null,
                RetryAfter.of(placement.rank(), estimate, policy.abandonAfter()), joined.seedCommitment(), null,
                joined.stock());
    }

    /**
     * The decision when Redis gives no placement: the route's {@code on-redis-failure}, a 503 or
     * a pass unchecked.
     */
    static Admission withoutRedis(AdmissionRequest request, Caller caller) {
        if (request.policy().onRedisFailure() != RedisFailureMode.OPEN) {
            return new Admission.Unavailable();
        }
        Invite invite = JoinChecks.invite(request.policy().invites(), request.invitation());
        // Failing open lets through who could have joined: a token holder, or a caller with the
        // invitation a new place needs (its use is not counted meanwhile).
        return invite.required() && !caller.hasToken() ? refused(request.invitation()) : new Admission.Unchecked();
    }

    /** Whether the token names this end of the session (a token of the release before names none). */
    static boolean namesSession(WaitToken token, long end) {
        return token.sessionEnd() != null && token.sessionEnd().toEpochMilli() == end;
    }

    /** A new place refused for want of a valid invitation: none brought, or the one brought is refused. */
    static Admission.Rejected refused(InvitationCheck check) {
        if (check instanceof InvitationCheck.Invalid invalid) {
            return new Admission.Rejected(Refusal.INVITE_INVALID, invalid.reason(), false, 0);
        }
        return new Admission.Rejected(Refusal.INVITE_REQUIRED, null, false, 0);
    }

    static Admission.Rejected tooManyJoins(long waitMillis) {
        return new Admission.Rejected(Refusal.TOO_MANY_JOINS, null, false, Math.max(1, (waitMillis + 999) / 1000));
    }
}
