package io.queuegate.challenge;

/**
 * A proof-of-work challenge as the ALTCHA protocol hands it to a client: find the
 * {@code number} between 0 and {@code maxnumber} for which {@code SHA-256(salt + number)}, in
 * lowercase hex, equals {@code challenge}; then send the five fields back, {@code maxnumber}
 * replaced by {@code number}. The salt carries the product and the expiry ({@code expires},
 * epoch seconds), and the signature (HMAC-SHA256 of {@code challenge}) binds them to it.
 */
public record Challenge(String algorithm, String challenge, long maxnumber, String salt, String signature) {
}
