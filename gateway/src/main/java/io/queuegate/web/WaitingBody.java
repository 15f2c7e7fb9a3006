package io.queuegate.web;

/**
 * The JSON body of a 429 waiting answer, field for field as in the HTTP contract.
 *
 * @param estimatedWaitSeconds {@code null} until an admission rate is known
 */
public record WaitingBody(String status, String productId, String userId, long rank, String token,
        long retryAfterSeconds, Long estimatedWaitSeconds) {
}
