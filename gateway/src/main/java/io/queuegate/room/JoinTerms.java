package io.queuegate.room;

/**
 * What a request cannot do if it would make a new place (a user who holds a place or a session
 * keeps it whatever these say).
 *
 * @param noNewPlace the request makes no place whatever it brings, and a user who holds nothing
 *                   is told {@link Placement.State#SESSION_ENDED}: a completing request
 *                   ({@code complete-on}) of a token holder (one admission buys once), or the
 *                   confirmation of a pass the active cache gave (it only asks)
 * @param unpaid the product asks a proof of work for a new place and the request brought none
 *               ({@link Placement.State#CHALLENGE_REQUIRED})
 * @param limited the caller is past its join limit ({@link Placement.State#JOIN_LIMITED})
 */
public record JoinTerms(boolean noNewPlace, boolean unpaid, boolean limited) {

    /** A request that may make a place. */
    public static final JoinTerms NONE = new JoinTerms(false, false, false);

    /** A request that makes no place whatever it brings. */
    public static final JoinTerms NO_NEW_PLACE = new JoinTerms(true, false, false);
}
