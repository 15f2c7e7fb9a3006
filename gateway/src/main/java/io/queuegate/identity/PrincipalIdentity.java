package io.queuegate.identity;

import java.security.Principal;

import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Mono;

/**
 * The caller is the principal Spring Security (or anything else that sets
 * {@code exchange.getPrincipal()}) authenticated. Spring Security's anonymous authentication is
 * no identity: it names every unauthenticated caller alike.
 */
public final class PrincipalIdentity implements IdentityResolver {

    /** Checked by name: the library does not need Spring Security on the classpath. */
    private static final String ANONYMOUS_AUTHENTICATION =
            "org.springframework.security.authentication.AnonymousAuthenticationToken";

    private final IgnoredIdentityHeaders ignored;

    /** @param ignored where a client-sent identity header is reported: in this mode it is never believed */
    public PrincipalIdentity(IgnoredIdentityHeaders ignored) {
        this.ignored = ignored;
    }

    @Override
    public Mono<String> resolve(ServerWebExchange exchange) {
        ignored.check(exchange, "queuegate.identity.source is principal: shoppers are who Spring Security "
                + "authenticated; to believe this header from your own proxies instead, set source to header and "
                + "list them in queuegate.trusted-proxies");
        return exchange.getPrincipal()
                .filter(principal -> !isAnonymous(principal))
                .mapNotNull(Principal::getName)
                .filter(name -> !name.isEmpty());
    }

    static boolean isAnonymous(Principal principal) {
        for (Class<?> type = principal.getClass(); type != null; type = type.getSuperclass()) {
            if (ANONYMOUS_AUTHENTICATION.equals(type.getName())) {
                return true;
            }
        }
        return false;
    }
}
