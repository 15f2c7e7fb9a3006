package io.queuegate.recovery;

import java.time.Clock;

import io.queuegate.config.QueuePolicy;
import io.queuegate.room.Reclaim;
import io.queuegate.store.RedisEpoch;
import io.queuegate.token.WaitToken;

/**
 * Which wait tokens prove something Redis may have forgotten. A token names the epoch of the
 * Redis data it was signed in ({@code ep}); one of the epoch just before the current one proves,
 * until its window ends:
 * <ul>
 * <li>an admitted shopper's session, until the session's own end ({@code sx}), unless this
 * instance heard it end after the token was signed;</li>
 * <li>a waiting shopper's place, by its ticket, within the recovery window (for a sale's
 * pre-queue, until {@code opens-at} plus {@code abandon-after} as well), unless this instance heard
 * the shopper admitted or gone after the token was signed.</li>
 * </ul>
 * Tokens of older epochs, and tokens of the release before (no epoch), prove nothing: their
 * holders are answered as before, and join again at the back where Redis knows no place of theirs.
 */
public final class Reclaims {

    private final RedisEpoch epoch;
    private final SessionLedger ledger;
    private final Clock clock;

    public Reclaims(RedisEpoch epoch, SessionLedger ledger, Clock clock) {
        this.epoch = epoch;
        this.ledger = ledger;
        this.clock = clock;
    }

    /**
     * What the holder's token proves and Redis may have lost, or {@code null}.
     *
     * @param policy the product's policy on the request's route, or {@code null} without a route
     */
    public Reclaim of(WaitToken token, QueuePolicy policy) {
        RedisEpoch.Epoch current = epoch.known();
        if (token == null || token.epoch() == null || current == null || token.epoch().equals(current.id())) {
            return null;
        }
        if (current.previous() != null && !token.epoch().equals(current.previous())) {
            return null;
        }
        long now = clock.millis();
        String productId = token.productId();
        String userId = token.userId();
        if (token.sessionEnd() != null) {
            long end = token.sessionEnd().toEpochMilli();
            return end > now && !ledger.endedSince(productId, userId, token.issuedAt())
                    ? Reclaim.session(end, token.issuedAt().toEpochMilli()) : null;
        }
        if (token.ticket() == null || now >= windowEnd(current, policy)
                || ledger.changedSince(productId, userId, token.issuedAt())) {
            return null;
        }
        return Reclaim.place(token.ticket());
    }

    /**
     * Whether the token was signed in another epoch than the current one, or names none (signed by
     * the release before): it is signed again with the next answer from Redis.
     */
    public boolean ofAnotherEpoch(WaitToken token) {
        RedisEpoch.Epoch current = epoch.known();
        return token != null && current != null && !current.id().equals(token.epoch());
    }

    /** Whether the token was signed before Redis's data last changed (it names an earlier epoch). */
    public boolean signedBeforeALoss(WaitToken token) {
        RedisEpoch.Epoch current = epoch.known();
        return token != null && token.epoch() != null && current != null && !current.id().equals(token.epoch());
    }

    /** The epoch tokens are signed in now, or {@code null} before Redis was first read. */
    public String currentEpoch() {
        RedisEpoch.Epoch current = epoch.known();
        return current == null ? null : current.id();
    }

    private long windowEnd(RedisEpoch.Epoch current, QueuePolicy policy) {
        long end = current.since() + epoch.window().toMillis();
        if (policy != null && policy.opensAt() != null) {
            end = Math.max(end, policy.opensAt().toEpochMilli()
                    + Math.max(policy.abandonAfter().toMillis(), epoch.window().toMillis()));
        }
        return end;
    }
}
