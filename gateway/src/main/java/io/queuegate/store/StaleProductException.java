package io.queuegate.store;

/**
 * A product script declined to decide because the product's state belongs to another epoch of
 * the Redis data, or is missing while a loss is recovered ({@code fill.lua}'s {@code stale}):
 * it must be recovered first ({@link ProductRecovery}). Not a Redis failure: Redis answered.
 */
public final class StaleProductException extends RuntimeException {

    /** The first value of a script's reply that asks for recovery ({@code fill.lua}'s {@code RECOVER}). */
    static final String REPLY = "recover";

    private final String productId;

    StaleProductException(String productId) {
        super("product " + productId + " must be recovered before its scripts decide on it", null, false, false);
        this.productId = productId;
    }

    public String productId() {
        return productId;
    }
}
