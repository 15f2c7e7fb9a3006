package io.queuegate.events;

/**
 * Who changed a product's stock: the {@code by} of {@link QueueEvents#stockChanged}. Its
 * {@link #value() spelling} is what the audit log's {@code by=} shows, and what
 * {@link #toString()} returns.
 */
public enum StockSource {

    /** The shop's {@code Queue-Stock} header. */
    SHOP("shop"),

    /** A completion counted down a stock an operator or the setting gave (the shop said nothing). */
    SALE("sale"),

    /** An operator's {@code stock} action. */
    OPERATOR("operator");

    private final String value;

    StockSource(String value) {
        this.value = value;
    }

    /** The spelling the audit log and the docs use. */
    public String value() {
        return value;
    }

    /** {@link #value()}, so a source prints as the audit log writes it. */
    @Override
    public String toString() {
        return value;
    }
}
