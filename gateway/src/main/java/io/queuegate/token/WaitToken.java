package io.queuegate.token;

import java.time.Instant;

/**
 * What a wait token says: who holds it and for which product. It grants nothing by itself:
 * whether its holder may pass is always read from Redis.
 *
 * @param productId the product whose queue the holder joined ({@code pid})
 * @param userId the holder ({@code uid}); made by the gateway for anonymous callers
 * @param anonymous whether the gateway made the user id ({@code anon})
 * @param issuedAt when it was signed ({@code iat})
 * @param expiresAt when it stops being accepted ({@code exp})
 * @param joinedAt when the holder took their place in line ({@code jat}); only tokens handed out
 *                 while waiting carry it, so its presence also says "was waiting"; else {@code null}
 * @param ticket the holder's ticket in line when the token was signed ({@code tkt}; negative in a
 *               product's invited line, {@code invites: priority}): with it, a
 *               gateway works out the holder's rank from its own view of the line, without asking
 *               Redis; {@code null} in tokens of someone not waiting, and in tokens signed before
 *               the claim existed (those are answered from Redis, and re-signed with it)
 * @param network the network the token is bound to ({@code net}), as a keyed hash of it (never
 *                the address: see {@link WaitTokenCodec#networkClaim}); {@code null} for a token
 *                bound to none
 * @param epoch the epoch of the Redis data it was signed in ({@code ep}): with it, a token signed
 *              before Redis forgot proves the place or session it names; {@code null} in tokens
 *              of the release before it (those are answered as before, without recovery)
 * @param sessionEnd when its holder's session ends ({@code sx}), on a token signed for an admitted
 *                   shopper: after a loss, the session comes back until then; else {@code null}
 */
public record WaitToken(String productId, String userId, boolean anonymous, Instant issuedAt, Instant expiresAt,
        Instant joinedAt, Long ticket, String network, String epoch, Instant sessionEnd) {

    /** A token of someone not (or no longer) waiting. */
    public WaitToken(String productId, String userId, boolean anonymous, Instant issuedAt, Instant expiresAt) {
        this(productId, userId, anonymous, issuedAt, expiresAt, null, null, null, null, null);
    }

    /** A token signed without an epoch (by the release before it, or a tool). */
    public WaitToken(String productId, String userId, boolean anonymous, Instant issuedAt, Instant expiresAt,
            Instant joinedAt, Long ticket, String network) {
        this(productId, userId, anonymous, issuedAt, expiresAt, joinedAt, ticket, network, null, null);
    }
}
