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

    /**
     * A request that makes no place whatever it brings, answered as a completing request is: a
     * user who holds nothing is told {@link Placement.State#SESSION_ENDED}, never put in line.
     * The confirmation of a pass the active cache gave is such a request: it only asks.
     */
    public static final JoinTerms NO_NEW_PLACE = new JoinTerms(true, false, false);
}
