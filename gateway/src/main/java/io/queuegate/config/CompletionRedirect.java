package io.queuegate.config;

/**
 * What a redirect ({@code 3xx}) answering a route's {@code complete-on} request means. A
 * server-rendered shop answers a refused order by sending the shopper back to the cart, and one
 * that redirects after every successful order (Post/Redirect/Get) only then: the route says which.
 */
public enum CompletionRedirect {

    /** The session ends and its place frees, but nothing was sold: the stock stays (the default). */
    LEAVE,

    /** A sale: the session ends and the stock counts it, as for a {@code 2xx}. */
    SALE
}
