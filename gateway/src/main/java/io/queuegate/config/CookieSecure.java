package io.queuegate.config;

/** When the {@code queue_token} cookie carries {@code Secure} ({@code queuegate.token.cookie-secure}). */
public enum CookieSecure {

    /**
     * When the request came over TLS: to the gateway itself, or to a proxy in
     * {@code queuegate.trusted-proxies} that says so with {@code X-Forwarded-Proto: https}.
     */
    AUTO,

    /** Always: for a gateway that is only ever reached over HTTPS, whatever the proxies say. */
    ALWAYS,

    /** Never: for local development over plain HTTP only. */
    NEVER
}
