package io.queuegate.web;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.queuegate.admission.Admission;
import io.queuegate.admission.Caller;

import org.springframework.http.HttpCookie;
import org.springframework.http.ResponseCookie;
import org.springframework.web.server.ServerWebExchange;

/**
 * The rank a waiting shopper's place had when they arrived, which the waiting page's progress
 * starts from (so it moves from the first page on, in a new tab and without JavaScript alike).
 * It is kept in a cookie of its own, {@value #COOKIE}, as {@code <product>~<ticket>~<rank>}: the
 * product's id, the ticket the wait token holds in line (which names the place: a place taken
 * again has another) and the rank. Another place or another product starts over. It is only a
 * page's figure: a forged value misleads nobody but its sender.
 */
final class ArrivalRank {

    static final String COOKIE = "queue_arrival";

    private ArrivalRank() {
    }

    /**
     * The arrival rank of {@code waiting}'s place (at least its rank now), written back to the
     * cookie when it is new or was not yet tied to the place's join time.
     */
    static long of(ServerWebExchange exchange, Admission.Waiting waiting, boolean secure) {
        Caller caller = waiting.caller();
        long rank = waiting.rank();
        // The token this answer carries names the place: one signed just now, or the one presented.
        Long ticket = waiting.newToken() ? ticketOf(waiting.token()) : caller.ticket();
        Kept kept = Kept.read(exchange.getRequest().getCookies().getFirst(COOKIE));
        boolean samePlace = ticket != null && kept != null && kept.productId().equals(caller.productId())
                && kept.ticket() == ticket;
        long arrival = samePlace ? Math.max(kept.rank(), rank) : rank;
        if (ticket != null && (!samePlace || arrival != kept.rank())) {
            String value = URLEncoder.encode(caller.productId(), StandardCharsets.UTF_8) + "~" + ticket + "~" + arrival;
            exchange.getResponse().addCookie(ResponseCookie.from(COOKIE, value).httpOnly(true).sameSite("Lax")
                    .secure(secure).path("/").build());
        }
        return arrival;
    }

    private static final Pattern TICKET = Pattern.compile("\"tkt\":(-?[0-9]{1,18})[,}]");

    /** The {@code tkt} claim of a token this gateway signed, read without checking it again; {@code null} without one. */
    static Long ticketOf(String token) {
        String[] parts = token == null ? new String[0] : token.split("\\.");
        if (parts.length != 3) {
            return null;
        }
        try {
            Matcher claim = TICKET.matcher(new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8));
            return claim.find() ? Long.valueOf(claim.group(1)) : null;
        }
        catch (IllegalArgumentException notBase64) {
            return null;
        }
    }

    private record Kept(String productId, long ticket, long rank) {

        static Kept read(HttpCookie cookie) {
            if (cookie == null) {
                return null;
            }
            String[] parts = cookie.getValue().split("~", -1);
            if (parts.length != 3) {
                return null;
            }
            try {
                long ticket = Long.parseLong(parts[1]);
                long rank = Long.parseLong(parts[2]);
                return rank < 1 ? null : new Kept(URLDecoder.decode(parts[0], StandardCharsets.UTF_8), ticket, rank);
            }
            catch (IllegalArgumentException notOurs) {
                return null;
            }
        }
    }
}
