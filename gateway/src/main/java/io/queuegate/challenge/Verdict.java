package io.queuegate.challenge;

import java.time.Duration;

/** What a {@code Queue-Challenge} header, or a wait ticket ({@link WaitTickets}), proves. */
public sealed interface Verdict {

    /**
     * A genuine, unexpired solution for the product. It may still have been used: {@code mark}
     * names it in Redis, where the join takes it once (single use across every instance).
     *
     * @param mark a name for the solved challenge, the same however its fields are written
     * @param markTtl how long the mark must be kept: until no instance accepts the solution
     * @param difficulty the difficulty the challenge was issued with (signed in its salt), 0 for a
     *                   challenge that does not say
     */
    record Solved(String mark, Duration markTtl, int difficulty) implements Verdict {

        /** A solution of a challenge that does not say its difficulty. */
        public Solved(String mark, Duration markTtl) {
            this(mark, markTtl, 0);
        }
    }

    /** A wait ticket of ours that is not ready yet: it buys a place from {@code readyAt} on. */
    record Early(java.time.Instant readyAt) implements Verdict {
    }

    /** Not a solution this gateway accepts; {@code detail} says why, safe to show the caller. */
    record Refused(String detail) implements Verdict {
    }
}
