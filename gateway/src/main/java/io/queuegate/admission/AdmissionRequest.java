package io.queuegate.admission;

import java.util.function.Supplier;

import io.queuegate.config.QueuePolicy;
import io.queuegate.invites.InvitationCheck;

/**
 * One request on a protected route, as the admission decision needs it.
 *
 * @param productId the product id from the path (validated by the caller resolver)
 * @param identity the caller's identity from the identity resolver, or {@code null} when anonymous
 * @param presented the request's token, or {@code null}
 * @param policy the product's rules on this route
 * @param clientAddress where the request came from, asked only for a join without a token, and
 *                      for a token on a product that binds tokens to their network
 * @param routeId the route, for metrics and the audit log
 * @param completing whether the request matches the route's {@code complete-on} rule: an active
 *                   caller must then claim the completion before being let through
 * @param invitation what the request brings towards the product's invitations, checked against
 *                   the product and the caller ({@link InvitationCheck#ABSENT} where the route's
 *                   {@code invites} is off: then none is read). A valid one lets a new place be
 *                   taken where the route asks for invitations, and spares the join other checks
 *                   (the proof of work among them)
 * @param challengeSolution the request's {@code Queue-Challenge} header (a proof-of-work
 *                          solution), or {@code null}; read only for a join without a token
 * @param waitTicket the request's wait ticket (a browser without JavaScript pays with a wait), or
 *                   {@code null}; read only without a solution
 */
public record AdmissionRequest(String productId, String identity, PresentedToken presented, QueuePolicy policy,
        Supplier<String> clientAddress, String routeId, boolean completing, InvitationCheck invitation,
        String challengeSolution, String waitTicket) {

    public AdmissionRequest(String productId, String identity, PresentedToken presented, QueuePolicy policy,
            Supplier<String> clientAddress, String routeId, boolean completing, InvitationCheck invitation,
            String challengeSolution) {
        this(productId, identity, presented, policy, clientAddress, routeId, completing, invitation,
                challengeSolution, null);
    }

    public AdmissionRequest {
        if (invitation == null) {
            invitation = InvitationCheck.ABSENT;
        }
    }

    /** This request with {@code chosen} as its token (of several cookies, the one that is read). */
    public AdmissionRequest withPresented(PresentedToken chosen) {
        return chosen == presented ? this : new AdmissionRequest(productId, identity, chosen, policy, clientAddress,
                routeId, completing, invitation, challengeSolution, waitTicket);
    }

    /** Whether the request carries a valid invitation for this product and caller. */
    public boolean invited() {
        return invitation.valid();
    }
}
