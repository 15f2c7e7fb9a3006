package io.queuegate.admission;

import java.util.function.Supplier;

import io.queuegate.identity.ClientAddresses;
import io.queuegate.identity.UserIds;
import io.queuegate.token.InvalidTokenException;
import io.queuegate.token.WaitToken;
import io.queuegate.token.WaitTokenCodec;

/**
 * Turns the request's product id, trusted identity and token into a {@link Caller}, or rejects
 * it. The identity comes only from an {@code IdentityResolver} (a principal, or a header from a
 * trusted proxy), never from what a client sends. A token from the {@code Queue-Token} header is
 * explicit, so a token for another product or another user is an error. The cookie is ambient,
 * shared by every product a browser visits, so a valid cookie for another product or another user
 * is set aside, not an error: it grants nothing either way, and an anonymous caller keeps its id
 * across products that way. A cookie that is not a valid token at all is refused (and cleared),
 * unless the request carries another that is: of several cookies one that verifies is read
 * ({@link #chosen}), and the others are ignored, never refused or cleared, so a cookie planted
 * beside the gateway's own can neither shadow it nor have it dropped.
 * Where a product binds its tokens to a network ({@code bind-token: network}), a token counts
 * only from the network it was issued to ({@link NetworkCheck}).
 */
public final class CallerResolver {

    private final WaitTokenCodec tokens;

    public CallerResolver(WaitTokenCodec tokens) {
        this.tokens = tokens;
    }

    /** A caller whose token is not held to any network (tests, and callers that never bind). */
    public Caller resolve(String productId, String identity, PresentedToken presented) {
        return resolve(productId, identity, presented, NetworkCheck.IGNORE, () -> null);
    }

    /**
     * @param productId the product id from the route's path
     * @param identity the caller's identity from the identity resolver, or {@code null} for an
     *                 anonymous caller; mapped through {@link UserIds#of(String)}
     * @param presented the token from the request, or {@code null}
     * @param check how the token is held to the network it was bound to
     * @param clientAddress where the request came from; asked only when a network must be checked
     */
    public Caller resolve(String productId, String identity, PresentedToken presented, NetworkCheck check,
            Supplier<String> clientAddress) {
        Identifiers.requireProductId(productId);
        String userId = identity == null ? null : UserIds.of(identity);
        if (presented == null) {
            return newCaller(productId, userId, identity, null);
        }
        presented = chosen(productId, presented);
        WaitToken token = verify(presented);
        Network network = new Network(clientAddress);
        if (!token.productId().equals(productId)) {
            if (presented.fromCookie()) {
                // On a bound product, another product's token lends its anonymous id (and with it a
                // place this id may hold here) only on the network it was bound to.
                boolean lends = check != NetworkCheck.REQUIRE || network.holds(token);
                return newCaller(productId, userId, identity, lends ? token : null);
            }
            throw new QueueRejection(Refusal.WRONG_PRODUCT, "the token was issued for another product");
        }
        if (check == NetworkCheck.REQUIRE && token.network() == null) {
            // Issued before the product was bound: it could have been passed around, so it never counts.
            throw new QueueRejection(Refusal.TOKEN_BOUND, "this product binds its queue tokens to the network they "
                    + "are issued to, and this token is bound to none: join again without it", presented.fromCookie());
        }
        if (check != NetworkCheck.IGNORE && token.network() != null && !network.holds(token)) {
            throw new QueueRejection(Refusal.TOKEN_BOUND, null,
                    presented.fromCookie() && check == NetworkCheck.REQUIRE);
        }
        if (userId == null) {
            // A token alone: enough to wait and ask; a signed-in shopper's place is only let
            // through with that shopper's identity.
            return new Caller(productId, token.userId(), token.anonymous(), null, token, token.anonymous());
        }
        if (!token.anonymous() && token.userId().equals(userId)) {
            return new Caller(productId, userId, false, identity, token, true);
        }
        if (presented.fromCookie()) {
            return newCaller(productId, userId, identity, null);
        }
        throw new QueueRejection(Refusal.WRONG_USER, "the token belongs to another user");
    }

    /**
     * The token the request presents: its header, or its only cookie, or of several cookies one
     * that verifies, for this product if one does (another product's lends no more than an
     * anonymous id). Of those, the last: the gateway's own cookie has the shortest path, {@code /},
     * and a browser sends a cookie of the same name with a longer path before it. When none
     * verifies, the first, which is refused as a single bad cookie is. The others are never read.
     */
    public PresentedToken chosen(String productId, PresentedToken presented) {
        if (presented == null || !presented.severalCookies()) {
            return presented;
        }
        String chosen = null;
        boolean forProduct = false;
        for (String value : presented.cookies()) {
            WaitToken token;
            try {
                token = tokens.verify(value);
            }
            catch (InvalidTokenException ignored) {
                continue;
            }
            boolean thisProduct = token.productId().equals(productId);
            if (thisProduct || !forProduct) {
                chosen = value;
                forProduct = thisProduct;
            }
        }
        return PresentedToken.cookie(chosen != null ? chosen : presented.value());
    }

    private WaitToken verify(PresentedToken presented) {
        if (presented.ambiguous()) {
            throw new QueueRejection(Refusal.INVALID_TOKEN, "the request carries more than one Queue-Token header");
        }
        try {
            return tokens.verify(presented.value());
        }
        catch (InvalidTokenException ex) {
            throw new QueueRejection(Refusal.INVALID_TOKEN, ex.getMessage(), presented.fromCookie());
        }
    }

    /**
     * How a request's token is held to the network it was bound to ({@code bind-token: network}).
     * A token that does not match is refused with {@link Refusal#TOKEN_BOUND}.
     */
    public enum NetworkCheck {

        /** The product does not bind its tokens: a network claim is not looked at. */
        IGNORE,

        /**
         * A token bound to a network must come from it; an unbound one is fine. For the
         * {@code /queue/**} endpoints, which serve any product's token without its route: a
         * refusal there never drops the cookie (a page's background request, on a brief switch of
         * network, must not cost the place).
         */
        IF_BOUND,

        /**
         * The product binds its tokens: only a token bound to this network counts. A refused
         * cookie is dropped, so the next request joins again from this network.
         */
        REQUIRE
    }

    /** The request's network claim, worked out once and only when a token asks for it. */
    private final class Network {

        private final Supplier<String> clientAddress;
        private String claimSource;
        private boolean read;

        Network(Supplier<String> clientAddress) {
            this.clientAddress = clientAddress;
        }

        boolean holds(WaitToken token) {
            if (token.network() == null) {
                return false;
            }
            if (!read) {
                String address = clientAddress.get();
                claimSource = address == null ? null : ClientAddresses.bindingNetwork(address);
                read = true;
            }
            return claimSource != null && tokens.boundTo(token, claimSource);
        }
    }

    private static Caller newCaller(String productId, String userId, String identity, WaitToken otherProductToken) {
        if (userId != null) {
            return new Caller(productId, userId, false, identity);
        }
        boolean keepAnonymousId = otherProductToken != null && otherProductToken.anonymous();
        String anonymousId = keepAnonymousId ? otherProductToken.userId() : Identifiers.newAnonymousUserId();
        return new Caller(productId, anonymousId, true, null);
    }
}
