package io.queuegate.identity;

/** Where {@code queuegate.identity.source} says the caller's identity comes from. */
public enum IdentitySource {

    /**
     * The authenticated principal's name ({@code exchange.getPrincipal()}), as Spring Security
     * (an OAuth2 resource server, a session login) sets it; no principal, or an anonymous
     * authentication, means an anonymous caller.
     */
    PRINCIPAL,

    /**
     * A request header ({@code queuegate.identity.header}), believed only when the request's
     * peer is one of {@code queuegate.trusted-proxies}; from any other peer the caller is
     * anonymous.
     */
    HEADER
}
