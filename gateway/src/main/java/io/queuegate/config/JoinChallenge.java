package io.queuegate.config;

/** What a join without a wait token must show before it takes a place in line. */
public enum JoinChallenge {

    /** Nothing: a request is enough (the default). */
    NONE,

    /** A solved proof-of-work challenge (the ALTCHA protocol) in the {@code Queue-Challenge} header. */
    POW
}
