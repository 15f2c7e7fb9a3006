package io.queuegate.config;

/**
 * Every HTTP header and cookie name of QueueGate's contract (docs/http-contract.md), spelled
 * once. The classes that read or write one name it by its constant here.
 */
public final class QueueHeaders {

    /** The wait token, in requests and answers. */
    public static final String TOKEN = "Queue-Token";

    /** The wait token's cookie, for browsers. */
    public static final String TOKEN_COOKIE = "queue_token";

    /** A browser's wait ticket (a browser without JavaScript pays for a place with a wait), for browsers. */
    public static final String WAIT_COOKIE = "queue_wait";

    /** A waiting answer's place in line. */
    public static final String RANK = "Queue-Rank";

    /** A pre-queue answer's latest moment to come back after the opening and keep the place. */
    public static final String COME_BACK_BY = "Queue-Come-Back-By";

    /** A join's proof-of-work solution. */
    public static final String CHALLENGE = "Queue-Challenge";

    /** An invitation, in a request. */
    public static final String INVITE = "Queue-Invite";

    /** The shop's answer ends the shopper's session ({@code true}); never passed on to shoppers. */
    public static final String RELEASE = "Queue-Release";

    /** The shop's answer says the units a product has left; never passed on to shoppers. */
    public static final String STOCK = "Queue-Stock";

    private QueueHeaders() {
    }
}
