package io.queuegate.admission;

import io.queuegate.challenge.JoinGate;
import io.queuegate.config.InviteMode;
import io.queuegate.config.QueuePolicy;
import io.queuegate.identity.ClientAddresses;
import io.queuegate.invites.Invitation;
import io.queuegate.invites.InvitationCheck;
import io.queuegate.room.Invite;

/**
 * What a new place costs before the join script is asked: the product's proof of work, the
 * caller's join limits, and the invitation the route asks for. All are checked here without
 * counting; only a place made counts ({@link #placeMade}).
 */
final class JoinChecks {

    private final JoinLimiter userLimiter;
    private final JoinLimiter addressLimiter;
    private final JoinGate joinGate;

    /**
     * @param userLimiter counts joins per identified user
     * @param addressLimiter counts joins per client address (IPv6 by /64), identified or not
     * @param joinGate what a join without a token must show first (join-challenge)
     */
    JoinChecks(JoinLimiter userLimiter, JoinLimiter addressLimiter, JoinGate joinGate) {
        this.userLimiter = userLimiter;
        this.addressLimiter = addressLimiter;
        this.joinGate = joinGate;
    }

    /** What the caller brings to a join under the route's {@code invites}. */
    static Invite invite(InviteMode mode, InvitationCheck check) {
        if (mode == InviteMode.OFF) {
            return Invite.NONE;
        }
        if (check instanceof InvitationCheck.Valid valid) {
            Invitation invitation = valid.invitation();
            return Invite.of(invitation.id(), invitation.uses(), invitation.expiresAt().toEpochMilli(),
                    mode == InviteMode.PRIORITY);
        }
        // An invitation that is refused is refused in either mode: its holder should hear so,
        // not be placed behind the invited without a word.
        return mode == InviteMode.REQUIRED || check instanceof InvitationCheck.Invalid ? Invite.REQUIRED
                : Invite.NONE;
    }

    /**
     * What the request shows towards the product's {@code join-challenge}, should it make a new
     * place: checked here, locally; the single use of a solution is the join script's to enforce.
     * The place where something that vouches for a place waives the challenge: a valid invitation does.
     */
    JoinGate.Outcome proveJoin(AdmissionRequest request, Caller caller) {
        QueuePolicy policy = request.policy();
        return joinGate.check(request.productId(), policy.joinChallenge(), policy.powDifficulty(),
                request.challengeSolution(), request.waitTicket(), request.invited(), caller.anonymous(),
                network(request));
    }

    /** What a new place costs the request's network now: a fresh challenge, or its wait ticket. */
    JoinGate.Price fresh(String productId, AdmissionRequest request, boolean ticketSpent) {
        return joinGate.fresh(productId, request.policy().powDifficulty(), network(request), ticketSpent);
    }

    /**
     * How long until the caller may make another place (0: now): the client address's limit and,
     * for an identified caller, the user's. Nothing is counted here.
     */
    long joinLimit(Caller caller, AdmissionRequest request) {
        long wait = addressLimiter.check(network(request));
        if (wait == 0 && !caller.anonymous()) {
            wait = userLimiter.check(caller.userId());
        }
        return wait;
    }

    /** The request made a new place: it counts against the caller's join limits and its network's rate. */
    void placeMade(Caller caller, AdmissionRequest request) {
        String network = network(request);
        addressLimiter.count(network);
        if (!caller.anonymous()) {
            userLimiter.count(caller.userId());
        }
        joinGate.placed(caller.productId(), network);
    }

    static String network(AdmissionRequest request) {
        return ClientAddresses.network(request.clientAddress().get());
    }
}
