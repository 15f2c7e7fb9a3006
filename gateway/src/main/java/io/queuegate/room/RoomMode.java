package io.queuegate.room;

/** A product's room mode, set by an operator: {@code lua/codes.lua}'s {@code MODE} table. */
public enum RoomMode implements ScriptCode {

    /** Normal: admit up to max-active, in line order. */
    QUEUE("queue"),
    /** Forward everyone (still counted as active). */
    PASSTHROUGH("passthrough"),
    /** Admit nobody new: everyone waits, the admitted finish. */
    QUEUE_ALL("queue-all"),
    /** Turn everyone away, the admitted too, until it reopens. */
    CLOSED("closed");

    private final String code;

    RoomMode(String code) {
        this.code = code;
    }

    @Override
    public String code() {
        return code;
    }

    /** The mode with this code, or {@code null}. */
    public static RoomMode of(String code) {
        for (RoomMode mode : values()) {
            if (mode.code.equals(code)) {
                return mode;
            }
        }
        return null;
    }
}
