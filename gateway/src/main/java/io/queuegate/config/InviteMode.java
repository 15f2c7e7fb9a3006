package io.queuegate.config;

/**
 * What a product's invitations (signed JWTs a shop hands out: a presale, an allow-list, members
 * first) do on a route.
 */
public enum InviteMode {

    /** Invitations play no part: an {@code invite} is neither read nor counted. */
    OFF,

    /** Only a shopper with a valid invitation takes a new place (403 {@code invite_required}). */
    REQUIRED,

    /** Invited shoppers wait in a line of their own, served before everyone else's. */
    PRIORITY
}
