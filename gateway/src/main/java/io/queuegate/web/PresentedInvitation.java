package io.queuegate.web;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.queuegate.config.QueueHeaders;
import io.queuegate.invites.InvitationCheck;
import io.queuegate.invites.InvitationVerifier;

import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;

/**
 * The invitation a request brings: the {@code Queue-Invite} header (from apps), else the
 * {@code invite} query parameter (from a link a shop sent). Both are QueueGate's, not the shop's:
 * the header never reaches the shop ({@link ForwardedRequestHeaders}), and on routes that read
 * invitations the parameter is taken out of the address the shop is sent.
 */
final class PresentedInvitation {

    static final String HEADER = QueueHeaders.INVITE;

    static final String PARAMETER = "invite";

    private PresentedInvitation() {
    }

    /** The request's invitation, checked for the product and the caller's identity ({@code null}: anonymous). */
    static InvitationCheck check(ServerHttpRequest request, InvitationVerifier verifier, String productId,
            String identity) {
        List<String> headers = request.getHeaders().getOrEmpty(HEADER);
        List<String> values = headers.isEmpty() ? request.getQueryParams().getOrDefault(PARAMETER, List.of()) : headers;
        if (values.size() > 1) {
            // Refused rather than guessed at, like a second Queue-Token.
            return new InvitationCheck.Invalid("the request carries more than one invitation");
        }
        return values.isEmpty() ? InvitationCheck.ABSENT : verifier.check(values.get(0), productId, identity);
    }

    /**
     * The exchange as the shop is to see it: without the {@code invite} query parameter (however
     * its name is percent-encoded); the same exchange when there is none.
     */
    static ServerWebExchange withoutParameter(ServerWebExchange exchange) {
        URI uri = exchange.getRequest().getURI();
        String query = uri.getRawQuery();
        if (query == null || !exchange.getRequest().getQueryParams().containsKey(PARAMETER)) {
            return exchange;
        }
        List<String> kept = new ArrayList<>();
        for (String pair : query.split("&")) {
            if (!pair.isEmpty() && !PARAMETER.equals(name(pair))) {
                kept.add(pair);
            }
        }
        StringBuilder address = new StringBuilder();
        if (uri.getScheme() != null) {
            address.append(uri.getScheme()).append(':');
        }
        if (uri.getRawAuthority() != null) {
            address.append("//").append(uri.getRawAuthority());
        }
        address.append(uri.getRawPath());
        if (!kept.isEmpty()) {
            address.append('?').append(String.join("&", kept));
        }
        if (uri.getRawFragment() != null) {
            address.append('#').append(uri.getRawFragment());
        }
        URI stripped = URI.create(address.toString());
        return exchange.mutate().request(exchange.getRequest().mutate().uri(stripped).build()).build();
    }

    /** A query pair's name, decoded the way the request's query parameters were. */
    private static String name(String pair) {
        int equals = pair.indexOf('=');
        String raw = equals < 0 ? pair : pair.substring(0, equals);
        try {
            return URLDecoder.decode(raw, StandardCharsets.UTF_8);
        }
        catch (IllegalArgumentException malformed) {
            return raw;
        }
    }
}
