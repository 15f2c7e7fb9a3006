package io.queuegate.web;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The JSON body of a 429 waiting answer, field for field as in the HTTP contract.
 *
 * @param status {@code WAITING}, or {@code PRE_QUEUE} before a scheduled sale opens
 * @param rank 1-based place in line; {@code null} in the pre-queue, where places are drawn at opening
 * @param estimatedWaitSeconds {@code null} until an admission rate is known
 * @param opensAt when the sale opens (ISO-8601), only in the pre-queue
 * @param preQueued how many are in the pre-queue, only there
 * @param seedCommitment SHA-256 (hex) of the seed of the product's pre-queue draw, from the draw's
 *                       first answer on; absent when the product has none
 * @param comeBackBy the latest the caller may come back after the opening and keep the place
 *                   (ISO-8601), only in the pre-queue
 * @param message what the pre-queue asks of the caller, in words, only there
 * @param stock the units the product has left, the admitted shoppers' carts included; {@code null}
 *              while unknown
 * @param withinStock whether that stock can serve the caller's place once everyone ahead has
 *                    bought; {@code null} while the stock is unknown, and in the pre-queue
 */
public record WaitingBody(String status, String productId, String userId, Long rank, String token,
        long retryAfterSeconds, Long estimatedWaitSeconds,
        @JsonInclude(JsonInclude.Include.NON_NULL) String opensAt,
        @JsonInclude(JsonInclude.Include.NON_NULL) Long preQueued,
        @JsonInclude(JsonInclude.Include.NON_NULL) String seedCommitment,
        @JsonInclude(JsonInclude.Include.NON_NULL) String comeBackBy,
        @JsonInclude(JsonInclude.Include.NON_NULL) String message,
        Long stock,
        Boolean withinStock) {

    /** A waiting answer after the opening, or of a product without one. */
    public WaitingBody(String status, String productId, String userId, Long rank, String token,
            long retryAfterSeconds, Long estimatedWaitSeconds, String seedCommitment, Long stock,
            Boolean withinStock) {
        this(status, productId, userId, rank, token, retryAfterSeconds, estimatedWaitSeconds, null, null,
                seedCommitment, null, null, stock, withinStock);
    }

    /**
     * What a JSON client in the pre-queue must do, in words: its fields say the same, for clients
     * written by someone who read only the answer.
     */
    static String preQueueMessage(Instant opensAt, String comeBackBy) {
        String message = "The sale opens at " + opensAt + ". Keep your Queue-Token and ask again as Retry-After says;"
                + " places are drawn at the opening.";
        if (comeBackBy != null) {
            message += " Come back by " + comeBackBy + " with your token, or your place goes to the next in line.";
        }
        return message;
    }
}
