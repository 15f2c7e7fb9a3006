package io.queuegate.invites;

/**
 * What a request brings towards a product's invitations: nothing, a valid invitation, or one that
 * is refused (and why, in words safe to show the caller).
 */
public sealed interface InvitationCheck {

    /** The request brings no invitation. */
    InvitationCheck ABSENT = new Absent();

    /** Whether the request brings a valid invitation (which also spares it other checks at join). */
    default boolean valid() {
        return this instanceof Valid;
    }

    /** The request brings no invitation. */
    record Absent() implements InvitationCheck {
    }

    /** The request brings this valid invitation, for its product and its shopper. */
    record Valid(Invitation invitation) implements InvitationCheck {
    }

    /**
     * The request brings an invitation that is refused: forged, expired, malformed, for another
     * product or for another shopper.
     */
    record Invalid(String reason) implements InvitationCheck {
    }
}
