package io.queuegate.admission;

import java.time.Duration;
import java.time.Instant;

import io.queuegate.events.QueueEvents;
import io.queuegate.events.RedisOperation;
import io.queuegate.line.LocalAnswers;
import io.queuegate.line.LocalStanding;
import io.queuegate.recovery.Reclaims;
import io.queuegate.room.Placement;
import io.queuegate.room.Reclaim;
import io.queuegate.room.Stock;
import io.queuegate.store.PlaceStore;
import io.queuegate.store.RedisFailures;
import io.queuegate.token.WaitTokenCodec;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import reactor.core.publisher.Mono;

/**
 * What happens to a place after the admission decision: a purchase that ends the session, one
 * the shop refused, a product the shop says it does not sell, a leave, and a token holder asking
 * where they stand (from this instance's memory or from Redis, with a token signed again when it
 * is due). The web layer maps these to HTTP; the decisions and what they cost Redis are here.
 */
public class Sessions {

    private static final Log log = LogFactory.getLog(Sessions.class);

    private final PlaceStore places;
    private final ActiveCache activeCache;
    private final QueueEvents events;
    private final LocalAnswers local;
    private final WaitTokenCodec tokens;
    private final Reclaims reclaims;

    public Sessions(PlaceStore places, ActiveCache activeCache, QueueEvents events, LocalAnswers local,
            WaitTokenCodec tokens, Reclaims reclaims) {
        this.places = places;
        this.activeCache = activeCache;
        this.events = events;
        this.local = local;
        this.tokens = tokens;
        this.reclaims = reclaims;
    }

    /** Whether {@code error} says Redis could not answer (a timeout, a lost connection, the open breaker). */
    public static boolean unavailable(Throwable error) {
        return RedisFailures.isRedisFailure(error);
    }

    /** Whether the product is one of {@code queuegate.products}. */
    public boolean isConfigured(String productId) {
        return places.isConfigured(productId);
    }

    /**
     * The shop confirmed the sale of the caller's completing request: the session ends, the sale
     * counts against the stock, and the place goes to the next in line. This instance forgets at
     * once that the caller was active. Never fails: the purchase went through, and a release that
     * could not be written only costs the session's ttl.
     *
     * @param unitsLeft what the shop's answer said the product has left ({@code Queue-Stock}),
     *                  or {@code null} when it said nothing
     * @param forwardedAt when the request was forwarded (epoch ms)
     */
    public Mono<Void> sold(Caller caller, String routeId, Long unitsLeft, long forwardedAt) {
        activeCache.forget(caller.productId(), caller.userId());
        return places.complete(caller.productId(), caller.userId(), unitsLeft, forwardedAt)
                .doOnNext(held -> {
                    if (held) {
                        events.completed(caller.productId(), routeId, caller.userId());
                    }
                })
                .then()
                .onErrorResume(error -> endFailed(caller, error));
    }

    /**
     * The shop ended the caller's session without a sale ({@code Queue-Release}, or a redirect that
     * is no sale on this route): the place goes to the next in line as on a leave, and nothing is
     * counted against the stock. Never fails, like {@link #sold}.
     */
    public Mono<Void> endedWithoutSale(Caller caller, Long unitsLeft, long forwardedAt) {
        activeCache.forget(caller.productId(), caller.userId());
        return places.endWithoutSale(caller.productId(), caller.userId(), unitsLeft, forwardedAt)
                .doOnSuccess(held -> local.left(caller.productId(), caller.userId()))
                .then()
                .onErrorResume(error -> endFailed(caller, error));
    }

    /**
     * The shop's answer to a request that ended nothing said what the product has left
     * ({@code Queue-Stock}), up or down. Redis believes it unless the request was forwarded before
     * the stock's last change; it is asked only when this instance's view of the line holds another
     * number, so a shop that sends the header with every page costs a script call per change, not
     * per page. Never fails: the next answer says it again.
     */
    public Mono<Void> stockSaid(String productId, long unitsLeft, long forwardedAt) {
        Stock known = local.stock(productId);
        if (known != null && unitsLeft == known.left()) {
            return Mono.empty();
        }
        return places.stockSaid(productId, unitsLeft, forwardedAt).then().onErrorResume(error -> {
            log.debug("Could not note the stock the shop said for product " + productId + ": " + error);
            return Mono.empty();
        });
    }

    private Mono<Void> endFailed(Caller caller, Throwable error) {
        if (RedisFailures.isRedisFailure(error)) {
            events.redisFailure(caller.productId(), RedisOperation.COMPLETION, error);
        }
        log.warn("Could not end the session of product " + caller.productId()
                + " the shop's answer ended; the place frees when the session expires: " + error);
        return Mono.empty();
    }

    /**
     * The shop answered the caller's completing request with a failure: the completion claim goes
     * back, so the shopper may try again in the same session. Never fails: a claim that cannot be
     * given back ends with the session, and one admission still buys at most once.
     */
    public Mono<Void> completionRefused(Caller caller, String claim) {
        return places.releaseCompletion(caller.productId(), caller.userId(), claim)
                .then()
                .onErrorResume(error -> {
                    log.warn("Could not release the completion claim of a failed request for product "
                            + caller.productId() + ": " + error);
                    return Mono.empty();
                });
    }

    /**
     * The shop answered 404 to the request that made the first place of a product that is not
     * configured: it sells no such product, and the place goes with the product's state (an
     * invented id costs nothing). Never fails.
     */
    public Mono<Void> noSuchProduct(Caller caller) {
        activeCache.forget(caller.productId(), caller.userId());
        return places.unknown(caller.productId(), caller.userId()).then().onErrorResume(error -> Mono.empty());
    }

    /**
     * The caller gives up their place, waiting or admitted, and the next in line is let in.
     *
     * @return whether the caller held a place
     */
    public Mono<Boolean> leave(Caller caller) {
        // Once Redis has answered, this instance's view (read before the leave) gives way to it.
        return Mono.fromRunnable(() -> activeCache.forget(caller.productId(), caller.userId()))
                .then(places.leave(caller.productId(), caller.userId()))
                .doOnSuccess(held -> local.left(caller.productId(), caller.userId()));
    }

    /**
     * Where the caller stands, without joining: from this instance's view of the line when the
     * token carries the caller's ticket and is not due to be signed again; else from Redis, which
     * also brings back what a token signed before a loss proves, and then a token due to be signed
     * again (or one without a ticket yet, or of another epoch) is signed anew for a caller in line.
     */
    public Mono<Standing> status(Caller caller) {
        Instant now = Instant.ofEpochMilli(places.millis());
        boolean otherEpoch = reclaims.ofAnotherEpoch(caller.token());
        boolean renew = caller.ticket() == null || tokens.dueForRenewal(caller.token()) || otherEpoch;
        if (!renew) {
            LocalStanding standing = local.status(caller.productId(), caller.userId(), caller.ticket(), true,
                    caller.token().epoch());
            if (standing != null) {
                return Mono.just(new Standing(standing.placement(), standing.opensAt(), standing.abandonAfter(),
                        standing.seedCommitment(), standing.stock(), null, now));
            }
        }
        Reclaim reclaim = otherEpoch ? reclaims.of(caller.token(), null) : null;
        return places.status(caller.productId(), caller.userId(), reclaim).map(status -> {
            String token = null;
            if (renew && status.placement().state().inLine()) {
                Instant joinedAt = caller.joinedAt() != null ? caller.joinedAt() : tokens.now();
                // A bound token stays bound: its holder's network was checked on the way in.
                token = tokens.issue(caller.productId(), caller.userId(), caller.anonymous(), joinedAt, status.ticket(),
                        caller.token().network(), reclaims.currentEpoch(), null);
            }
            return new Standing(status.placement(), status.opensAt(), status.abandonAfter(), status.seedCommitment(),
                    status.stock(), token, now);
        });
    }

    /**
     * Where a token holder stands.
     *
     * @param opensAt the sale's opens-at, or {@code null}
     * @param abandonAfter the product's abandon-after, {@link Duration#ZERO} for never
     * @param seedCommitment the commitment of the product's pre-queue draw, or {@code null}
     * @param stock what the product has left to sell, {@code null} while unknown
     * @param newToken a token signed for this answer, or {@code null} when the presented one stays
     * @param at when it was worked out
     */
    public record Standing(Placement placement, Instant opensAt, Duration abandonAfter, String seedCommitment,
            Stock stock, String newToken, Instant at) {
    }
}
