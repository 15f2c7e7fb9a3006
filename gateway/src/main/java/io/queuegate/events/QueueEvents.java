package io.queuegate.events;

import java.time.Duration;

/**
 * What happens to the queues, as the admission path, the store and the promotion loops see it:
 * the one hook that metrics and the audit log listen on. Every method has a no-op default, so a
 * listener implements only what it needs; calls come from request and event threads and must
 * not block.
 */
public interface QueueEvents {

    /** A caller took a new ticket; {@code rank} is 0 when admitted in the same call. */
    default void joined(String productId, String routeId, String userId, long rank) {
    }

    /**
     * A script moved {@code promoted} (at least 1) users into the active set.
     *
     * @param trigger what ran the promotion
     */
    default void promoted(String productId, Trigger trigger, long promoted) {
    }

    /**
     * A script dropped {@code abandoned} (at least 1) users from the product's line: promotion
     * reached them and they had not been seen for the product's abandon-after (closed tabs,
     * clients that stopped asking).
     *
     * @param trigger what ran the promotion, as for {@link #promoted(String, Trigger, long)}
     */
    default void abandoned(String productId, Trigger trigger, long abandoned) {
    }

    /** A caller whose token said it was waiting was found active: its wait is over. */
    default void admitted(String productId, String routeId, String userId, Duration waited) {
    }

    /** A {@code complete-on} request succeeded and ended the caller's session. */
    default void completed(String productId, String routeId, String userId) {
    }

    /**
     * Redis answered that the user holds one of the product's places until {@code endsAt} (epoch
     * ms): what an instance remembers of the sessions it saw, in case Redis forgets them.
     */
    default void session(String productId, String userId, long endsAt) {
    }

    /**
     * After Redis forgot, this instance merged what it remembers of the product into it
     * ({@code recover.lua}); {@code floor} is the line's recovery floor, above which every ticket
     * was taken after the loss.
     */
    default void recovered(String productId, long floor) {
    }

    /**
     * The product's stock changed.
     *
     * @param unitsLeft the units left, or -1 when it became unknown
     * @param by what changed it
     * @param soldOut whether this change sold the product out (once per time it runs out)
     */
    default void stockChanged(String productId, long unitsLeft, StockSource by, boolean soldOut) {
    }

    /** A user gave up their place (waiting or active). */
    default void left(String productId, String userId) {
    }

    /** Redis's expiry of a session was handled (counted once across all instances). */
    default void expired(String productId, String userId) {
    }

    /**
     * Redis could not answer.
     *
     * @param productId the product concerned, or {@code null} when the call was for many
     * @param operation what QueueGate was doing
     */
    default void redisFailure(String productId, RedisOperation operation, Throwable error) {
    }

    /** Redis could not answer and the route fails open: the request went through unchecked. */
    default void failOpenPass(String productId, String routeId) {
    }

    /** A request on a protected route was answered with a contract error ({@code code}). */
    default void rejected(String routeId, String code) {
    }

    /**
     * The filter decided about one request.
     *
     * @param outcome what it decided
     */
    default void decided(String routeId, Decision outcome, Duration took) {
    }

    /** An operator changed a product through the {@code queues} endpoint. */
    default void operatorAction(String productId, String action, String value, long promoted) {
    }

    /**
     * An operator changed a product through the {@code queues} endpoint; by default the same as
     * {@link #operatorAction(String, String, String, long)}.
     *
     * @param actor the name of the principal who acted, or {@code null} when the request had none
     */
    default void operatorAction(String productId, String action, String value, long promoted, String actor) {
        operatorAction(productId, action, value, promoted);
    }
}
