package io.queuegate.config;

/**
 * What a request must show before it takes a new place in line (a shopper who holds a place, or a
 * session, keeps it without showing anything).
 */
public enum JoinChallenge {

    /** Nothing: a request is enough (the library's default). */
    NONE,

    /**
     * A solved proof-of-work challenge (the ALTCHA protocol) in the {@code Queue-Challenge} header,
     * from every caller.
     */
    POW,

    /**
     * A solved proof of work from anonymous callers only (the runnable gateway's default, through
     * {@code queuegate.route-defaults.join-challenge}): a signed-in shopper is already someone the
     * shop can hold to account, an anonymous one can be minted by the thousand.
     */
    ANONYMOUS
}
