package io.queuegate.identity;

import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Mono;

/**
 * Who the caller is, as the shop knows them: the QueueGate counterpart of Spring Cloud Gateway's
 * {@code KeyResolver}. Whatever it returns is believed (it becomes the place in line and the
 * identity the backend is told), so it must come from something the gateway can trust: Spring
 * Security's principal, or a header written by a trusted proxy. Never a value the client chose.
 * An application bean of this type replaces the configured {@code queuegate.identity.source}.
 */
@FunctionalInterface
public interface IdentityResolver {

    /**
     * The caller's id, or an empty {@code Mono} for an anonymous caller (QueueGate then makes an
     * id of its own and keeps it in the wait token). Any string is accepted: ids outside the
     * user-id alphabet are mapped to a stable hashed id ({@link UserIds#of(String)}).
     */
    Mono<String> resolve(ServerWebExchange exchange);
}
