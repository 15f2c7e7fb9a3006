package io.queuegate.config;

/** What a wait token is bound to, beyond its product and holder. */
public enum BindToken {

    /** Nothing: whoever presents the token holds the place (the default). */
    NONE,

    /**
     * The network it was issued to (an IPv4 /24, an IPv6 /64): presented from another, it is
     * refused with {@code 403 token_bound}.
     */
    NETWORK
}
