package io.queuegate.store;

import java.util.Map;

import io.queuegate.room.AdminAction;
import io.queuegate.room.ExpiryOutcome;
import io.queuegate.room.Placement;
import io.queuegate.room.PromotionOutcome;
import io.queuegate.room.RoomMode;
import io.queuegate.room.ScriptCode;

/**
 * The code tables of {@code lua/codes.lua} and the Java enums that mirror them; a test reads the
 * tables from Redis and checks each against its enum.
 */
public final class ScriptCodes {

    /** Lua table name to the enum that mirrors it. */
    public static final Map<String, Class<? extends ScriptCode>> TABLES = Map.of(
            "STATE", Placement.State.class,
            "PROMOTION", PromotionOutcome.class,
            "EXPIRY", ExpiryOutcome.class,
            "MODE", RoomMode.class,
            "ACTION", AdminAction.class);

    private ScriptCodes() {
    }
}
