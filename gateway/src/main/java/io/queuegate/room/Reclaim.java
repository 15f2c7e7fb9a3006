package io.queuegate.room;

/**
 * What a wait token signed before a loss proves, and Redis may have forgotten: an admitted
 * session until its end, or a place in line by its ticket. The gateway sends it with a request
 * only when the token is its holder's own, from the epoch before the loss and within the
 * recovery window; {@code fill.lua}'s {@code reclaim} honours each once.
 *
 * @param session whether it is an admitted session (else a place in line)
 * @param value the session's end (epoch ms), or the place's ticket (negative in the invited line)
 * @param signedAt when the token was signed (epoch ms): a session heard to end after it does not
 *                 come back
 */
public record Reclaim(boolean session, long value, long signedAt) {

    /** An admitted session that ends at {@code endMillis}, named by a token signed at {@code signedAt}. */
    public static Reclaim session(long endMillis, long signedAt) {
        return new Reclaim(true, endMillis, signedAt);
    }

    /** A place in line: its ticket, negative in a product's invited line. */
    public static Reclaim place(long ticket) {
        if (ticket == 0) {
            throw new IllegalArgumentException("a place in line has a ticket other than 0");
        }
        return new Reclaim(false, ticket, 0);
    }
}
