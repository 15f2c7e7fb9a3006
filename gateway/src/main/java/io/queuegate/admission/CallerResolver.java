package io.queuegate.admission;

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
 * across products that way. A cookie that is not a valid token at all is refused (and cleared).
 */
public final class CallerResolver {

    private final WaitTokenCodec tokens;

    public CallerResolver(WaitTokenCodec tokens) {
        this.tokens = tokens;
    }

    /**
     * @param productId the product id from the route's path
     * @param identity the caller's identity from the identity resolver, or {@code null} for an
     *                 anonymous caller; mapped through {@link UserIds#of(String)}
     * @param presented the token from the request, or {@code null}
     */
    public Caller resolve(String productId, String identity, PresentedToken presented) {
        Identifiers.requireProductId(productId);
        String userId = identity == null ? null : UserIds.of(identity);
        if (presented == null) {
            return newCaller(productId, userId, identity, null);
        }
        WaitToken token = verify(presented);
        if (!token.productId().equals(productId)) {
            if (presented.fromCookie()) {
                return newCaller(productId, userId, identity, token);
            }
            throw new QueueRejection(Refusal.WRONG_PRODUCT, "the token was issued for another product");
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

    private static Caller newCaller(String productId, String userId, String identity, WaitToken otherProductToken) {
        if (userId != null) {
            return new Caller(productId, userId, false, identity);
        }
        boolean keepAnonymousId = otherProductToken != null && otherProductToken.anonymous();
        String anonymousId = keepAnonymousId ? otherProductToken.userId() : Identifiers.newAnonymousUserId();
        return new Caller(productId, anonymousId, true, null);
    }
}
