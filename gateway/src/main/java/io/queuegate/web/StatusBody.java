package io.queuegate.web;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The JSON body of {@code GET /queue/{productId}/status} and {@code DELETE /queue/{productId}}.
 *
 * @param status {@code WAITING}, {@code ACTIVE}, {@code NOT_FOUND} or, after a leave, {@code LEFT}
 * @param rank 1-based place in line, only while waiting
 * @param retryAfterSeconds when to ask again, only while waiting
 * @param estimatedWaitSeconds the wait estimate, only while waiting and once a rate is known
 * @param opensAt when the sale opens (ISO-8601), only in a sale's pre-queue
 * @param seedCommitment SHA-256 (hex) of the seed of the product's pre-queue draw, while in line
 *                       (pre-queued or waiting) and the product has one
 * @param stock the units the product has left, while in line or sold out and once the stock is known
 * @param withinStock whether that stock can serve the caller's place once everyone ahead has
 *                    bought, while waiting and once the stock is known
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record StatusBody(String status, String productId, String userId, Long rank, Long retryAfterSeconds,
        Long estimatedWaitSeconds, String opensAt, String seedCommitment, Long stock, Boolean withinStock) {

    public StatusBody(String status, String productId, String userId, Long rank, Long retryAfterSeconds,
            Long estimatedWaitSeconds) {
        this(status, productId, userId, rank, retryAfterSeconds, estimatedWaitSeconds, null, null, null, null);
    }
}
