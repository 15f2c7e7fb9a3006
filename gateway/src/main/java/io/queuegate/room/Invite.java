package io.queuegate.room;

/**
 * What a user brings towards the product's invitations, which matter only when the call would
 * give them a new place (a user in line or admitted keeps theirs whatever they bring).
 *
 * @param id the invitation's {@code jti}; {@code null} when the user brings no valid invitation
 * @param uses how many places the invitation may make for the product
 * @param expiresAt the invitation's {@code exp} (epoch ms): its count in Redis ends a minute later
 * @param invitedLine whether the place is taken in the invited line ({@code invites: priority})
 *                    rather than the main one
 * @param required whether a new place needs a valid invitation and the user brings none:
 *                 {@link Placement.State#INVITE_REQUIRED} instead of a place
 */
public record Invite(String id, long uses, long expiresAt, boolean invitedLine, boolean required) {

    /** Nothing needed, nothing brought. */
    public static final Invite NONE = new Invite(null, 0, 0, false, false);

    /** A new place needs an invitation, and the user brings none that is valid. */
    public static final Invite REQUIRED = new Invite(null, 0, 0, false, true);

    public Invite {
        if (id != null && (id.isEmpty() || id.chars().anyMatch(c -> c <= ' ' || c > '~') || uses < 1)) {
            throw new IllegalArgumentException("an invitation id is visible ASCII without spaces, and its uses at least 1");
        }
    }

    /** A valid invitation the gateway checked. */
    public static Invite of(String id, long uses, long expiresAt, boolean invitedLine) {
        return new Invite(id, uses, expiresAt, invitedLine, false);
    }
}
