package io.queuegate.room;

/**
 * What a request cannot do if it would make a new place (a user who holds a place or a session
 * keeps it whatever these say).
 *
 * @param completing it is a completing request ({@code complete-on}) of a token holder: a
 *                   completion never makes a place ({@link Placement.State#SESSION_ENDED})
 * @param unpaid the product asks a proof of work for a new place and the request brought none
 *               ({@link Placement.State#CHALLENGE_REQUIRED})
 * @param limited the caller is past its join limit ({@link Placement.State#JOIN_LIMITED})
 */
public record JoinTerms(boolean completing, boolean unpaid, boolean limited) {

    /** A request that may make a place. */
    public static final JoinTerms NONE = new JoinTerms(false, false, false);
}
