package io.queuegate.room;

/**
 * A Java enum that mirrors one of the code tables of {@code lua/codes.lua}: each constant's
 * {@link #code()} is the string the scripts answer with. {@link ScriptCodes} lists the tables.
 */
public interface ScriptCode {

    String code();
}
