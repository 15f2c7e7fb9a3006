package io.queuegate.admission;

import java.time.Instant;

import io.queuegate.identity.UserIds;
import io.queuegate.token.WaitToken;

/**
 * Who is asking, for which product, once identity and token are checked.
 *
 * @param productId the validated product id
 * @param userId the shop's user id (as {@code UserIds} keeps it), or the gateway-made id of an
 *               anonymous caller
 * @param anonymous whether the gateway made the id
 * @param token the valid token for this product the caller presented, or {@code null} (then one
 *              must be issued)
 * @param identity the identity the request proved (a principal's name, or a trusted proxy's
 *                 header) as it came, before it was turned into {@code userId}; {@code null} when
 *                 it proved none
 * @param mayForward whether the request may be let through to the shop when the caller is
 *                   active: always for anonymous tokens and for the identity the request proves;
 *                   not for a signed-in shopper's token presented without that shopper's identity
 *                   (it still gets waiting answers, status and events: a browser's page and
 *                   {@code EventSource} carry no bearer token)
 */
public record Caller(String productId, String userId, boolean anonymous, String identity, WaitToken token,
        boolean mayForward) {

    /** A caller without a token, who may be forwarded. */
    public Caller(String productId, String userId, boolean anonymous, String identity) {
        this(productId, userId, anonymous, identity, null, true);
    }

    public boolean hasToken() {
        return token != null;
    }

    /** When the caller's token says it joined the line it still waited in, else {@code null}. */
    public Instant joinedAt() {
        return token == null ? null : token.joinedAt();
    }

    /** The ticket the caller's token says it holds in line, else {@code null}. */
    public Long ticket() {
        return token == null ? null : token.ticket();
    }

    /**
     * The identity the forwarded request tells the shop: the one the request proved, as it came
     * when a header can carry it ({@link UserIds#forwardable}); {@code null} for an anonymous caller.
     */
    public String forwardedIdentity() {
        if (anonymous) {
            return null;
        }
        return UserIds.forwardable(identity != null ? identity : userId);
    }
}
