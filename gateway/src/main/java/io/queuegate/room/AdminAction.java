package io.queuegate.room;

/** An operator's change to one product: {@code lua/codes.lua}'s {@code ACTION} table. */
public enum AdminAction implements ScriptCode {

    /** A new max-active, or back to the route's. */
    MAX("max"),
    /** A room mode. */
    MODE("mode"),
    /** The mode queue-all. */
    PAUSE("pause"),
    /** The mode queue, and no longer draining. */
    RESUME("resume"),
    /** Paused, and nobody new may join. */
    DRAIN("drain"),
    /** New shoppers may join again. */
    UNDRAIN("undrain"),
    /** The units left to sell: a restock (higher) reopens a sold-out line in its order; "" = unknown. */
    STOCK("stock");

    private final String code;

    AdminAction(String code) {
        this.code = code;
    }

    @Override
    public String code() {
        return code;
    }

    /** The action with this code, or {@code null}. */
    public static AdminAction of(String code) {
        for (AdminAction action : values()) {
            if (action.code.equals(code)) {
                return action;
            }
        }
        return null;
    }
}
