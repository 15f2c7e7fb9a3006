package io.queuegate.admission;

import io.queuegate.token.InvalidTokenException;
import io.queuegate.token.WaitToken;
import io.queuegate.token.WaitTokenCodec;
import io.queuegate.web.QueueError;

/**
 * Turns the request's product id, user-id header and token into a {@link Caller}, or rejects
 * it. A token from the {@code Queue-Token} header is explicit, so a token for another product is
 * an error (the seed's anti-cheat rule). The cookie is ambient, shared by every product a
 * browser visits, so a cookie for another product is set aside, not an error; an anonymous
 * caller keeps its id across products that way.
 */
public final class CallerResolver {

    private final WaitTokenCodec tokens;

    public CallerResolver(WaitTokenCodec tokens) {
        this.tokens = tokens;
    }

    /**
     * @param productId the product id from the route's path
     * @param headerUserId the user-id header, or {@code null} for an anonymous caller
     * @param presented the token from the request, or {@code null}
     */
    public Caller resolve(String productId, String headerUserId, PresentedToken presented) {
        Identifiers.requireProductId(productId);
        if (headerUserId != null) {
            Identifiers.requireUserId(headerUserId);
        }
        if (presented == null) {
            return newCaller(productId, headerUserId, null);
        }
        WaitToken token = verify(presented);
        if (!token.productId().equals(productId)) {
            if (presented.fromCookie()) {
                return newCaller(productId, headerUserId, token);
            }
            throw new QueueRejection(QueueError.WRONG_PRODUCT, "the token was issued for another product");
        }
        requireSameUser(token, headerUserId);
        return new Caller(productId, token.userId(), token.anonymous(), true, token.joinedAt());
    }

    private WaitToken verify(PresentedToken presented) {
        if (presented.ambiguous()) {
            throw new QueueRejection(QueueError.INVALID_TOKEN, "the request carries more than one Queue-Token header");
        }
        try {
            return tokens.verify(presented.value());
        }
        catch (InvalidTokenException ex) {
            throw new QueueRejection(QueueError.INVALID_TOKEN, ex.getMessage(), presented.fromCookie());
        }
    }

    private static void requireSameUser(WaitToken token, String headerUserId) {
        if (headerUserId == null ? !token.anonymous() : token.anonymous() || !token.userId().equals(headerUserId)) {
            throw new QueueRejection(QueueError.WRONG_USER, "the token belongs to another user");
        }
    }

    private static Caller newCaller(String productId, String headerUserId, WaitToken otherProductToken) {
        if (headerUserId != null) {
            return new Caller(productId, headerUserId, false, false);
        }
        boolean keepAnonymousId = otherProductToken != null && otherProductToken.anonymous();
        String userId = keepAnonymousId ? otherProductToken.userId() : Identifiers.newAnonymousUserId();
        return new Caller(productId, userId, true, false);
    }
}
