package io.queuegate.room;

import java.time.Duration;
import java.util.regex.Pattern;

/**
 * One user's part of a join call.
 *
 * @param claim when the request would complete the session, the id of its completion claim (an
 *              active user must take it: {@link Placement.State#COMPLETING} when another
 *              request holds it); else {@code null}
 * @param invite what the user brings towards the product's invitations, for a new place
 * @param challengeMark when the join paid a proof of work, the solved challenge's mark, taken
 *                      once in Redis ({@link Placement.State#CHALLENGE_USED} when it was
 *                      taken before); else {@code null}
 * @param markTtl how long the mark is kept; {@code null} without a mark
 * @param reclaim what the user's wait token proves that Redis may have lost after a loss,
 *                brought back first ({@link Reclaim}); {@code null} for nothing
 * @param terms what the request cannot do if it would make a new place
 */
public record Joiner(String userId, String claim, Invite invite, String challengeMark, Duration markTtl,
        Reclaim reclaim, JoinTerms terms) {

    /** A solved challenge's mark, as join.lua keys it. Compiled once: every paid join is checked. */
    private static final Pattern MARK = Pattern.compile("[0-9a-f]{1,64}");

    public Joiner {
        if (terms == null) {
            terms = JoinTerms.NONE;
        }
        if (claim != null && (claim.isEmpty() || claim.indexOf(':') >= 0)) {
            throw new IllegalArgumentException("a claim id is a non-empty string without ':'");
        }
        if (invite == null) {
            invite = Invite.NONE;
        }
        if (challengeMark != null && (!MARK.matcher(challengeMark).matches() || markTtl == null
                || markTtl.toMillis() < 1)) {
            throw new IllegalArgumentException("a challenge mark is hex with a positive ttl");
        }
    }

    /** A user for whom invitations, proofs of work and losses play no part. */
    public Joiner(String userId, String claim) {
        this(userId, claim, Invite.NONE, null, null, null, JoinTerms.NONE);
    }

    /** A user who brings this towards the product's invitations and paid no proof of work. */
    public Joiner(String userId, String claim, Invite invite) {
        this(userId, claim, invite, null, null, null, JoinTerms.NONE);
    }

    /** A join that paid a proof of work, for a product without invitations. */
    public Joiner(String userId, String claim, String challengeMark, Duration markTtl) {
        this(userId, claim, Invite.NONE, challengeMark, markTtl, null, JoinTerms.NONE);
    }

    /** A user who brings what a token signed before a loss proves, and nothing else. */
    public static Joiner reclaiming(String userId, Reclaim reclaim) {
        return new Joiner(userId, null, Invite.NONE, null, null, reclaim, JoinTerms.NONE);
    }

    /** This joiner under other terms for a new place. */
    public Joiner under(JoinTerms other) {
        return new Joiner(userId, claim, invite, challengeMark, markTtl, reclaim, other);
    }
}
