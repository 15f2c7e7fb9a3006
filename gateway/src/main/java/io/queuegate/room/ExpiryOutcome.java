package io.queuegate.room;

/** What handling a session's expiry event did: {@code lua/codes.lua}'s {@code EXPIRY} table. */
public enum ExpiryOutcome implements ScriptCode {

    /** The session ended here, exactly once across all instances. */
    EXPIRED("expired"),
    /** The user holds a newer session: the event was stale. */
    NEWER_SESSION("newer_session"),
    /** Another instance handled it first, or the user left. */
    HANDLED("handled");

    private final String code;

    ExpiryOutcome(String code) {
        this.code = code;
    }

    @Override
    public String code() {
        return code;
    }
}
