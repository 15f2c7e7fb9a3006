package io.queuegate.room;

/** What one promotion pass did: {@code lua/codes.lua}'s {@code PROMOTION} table. */
public enum PromotionOutcome implements ScriptCode {

    /** Admitted at least one user. */
    MOVED("moved"),
    /** People wait, but no place is free or no admission is due. */
    FULL("full"),
    /** Nobody waits, or the product has no state: the caller may forget it. */
    EMPTY("empty"),
    /** The product uses another strategy than the one the pass was for. */
    SKIPPED("skipped");

    private final String code;

    PromotionOutcome(String code) {
        this.code = code;
    }

    @Override
    public String code() {
        return code;
    }
}
