package io.queuegate.web;

import java.time.Duration;

import io.queuegate.admission.PresentedToken;
import io.queuegate.challenge.WaitTickets;

import org.springframework.http.ResponseCookie;
import org.springframework.http.server.reactive.ServerHttpRequest;

/** The token cookie: HttpOnly, {@code SameSite=Lax}, and {@code Secure} as {@link SecureCookies} says. */
final class TokenCookies {

    private final SecureCookies secureCookies;

    TokenCookies(SecureCookies secureCookies) {
        this.secureCookies = secureCookies;
    }

    /** The token cookie holding {@code value} for {@code maxAge} ({@link Duration#ZERO}: cleared). */
    ResponseCookie token(ServerHttpRequest request, String value, Duration maxAge) {
        return ResponseCookie.from(PresentedToken.COOKIE, value)
                .httpOnly(true)
                .sameSite("Lax")
                .secure(secureCookies.secure(request))
                .path("/")
                .maxAge(maxAge)
                .build();
    }

    /** The wait ticket's cookie: a browser without JavaScript brings it back when its page refreshes. */
    ResponseCookie waitTicket(ServerHttpRequest request, WaitTickets.Ticket ticket) {
        return ResponseCookie.from(WaitTickets.COOKIE, ticket.value()).httpOnly(true).sameSite("Lax")
                .secure(secureCookies.secure(request)).path("/").maxAge(ticket.lifetime()).build();
    }
}
