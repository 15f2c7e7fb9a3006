package io.queuegate.store;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.queuegate.room.ScriptCode;

/**
 * A script's answer as named fields: the scripts reply with {@code {name, value, name, value,
 * ...}}, so each field is read by its name in the one adapter of its script, never by position.
 * A missing field is a mismatch between a script and its adapter and fails loudly.
 */
public final class ScriptReply {

    private final String script;
    private final Map<String, Object> fields;

    private ScriptReply(String script, Map<String, Object> fields) {
        this.script = script;
        this.fields = fields;
    }

    /** Reads a flat list of names and values, as Redis hands over a Lua table. */
    public static ScriptReply of(String script, List<?> flat) {
        if (flat.size() % 2 != 0) {
            throw new IllegalStateException(script + " replied with an odd number of values: " + flat);
        }
        Map<String, Object> fields = new HashMap<>(flat.size());
        for (int i = 0; i < flat.size(); i += 2) {
            fields.put(String.valueOf(flat.get(i)), flat.get(i + 1));
        }
        return new ScriptReply(script, fields);
    }

    public long number(String name) {
        Object value = field(name);
        if (value instanceof Number number) {
            return number.longValue();
        }
        try {
            return Long.parseLong(String.valueOf(value));
        }
        catch (NumberFormatException ex) {
            throw new IllegalStateException(script + " replied " + name + " = '" + value + "', not a number");
        }
    }

    public String text(String name) {
        return String.valueOf(field(name));
    }

    /** A field whose value is a list (a Lua table inside the reply). */
    public List<?> list(String name) {
        Object value = field(name);
        if (value instanceof List<?> list) {
            return list;
        }
        throw new IllegalStateException(script + " replied " + name + " = '" + value + "', not a list");
    }

    /** A field that holds a decimal number as text (a Lua number would reach Redis cut to an integer). */
    public double decimal(String name) {
        try {
            return Double.parseDouble(text(name));
        }
        catch (NumberFormatException ex) {
            throw new IllegalStateException(script + " replied " + name + " = '" + text(name) + "', not a number");
        }
    }

    /** A field the script sets to 1 or 0. */
    public boolean flag(String name) {
        return number(name) == 1;
    }

    /** The code of one of the script's code tables ({@code codes.lua}), as the Java enum that mirrors it. */
    public <E extends Enum<E> & ScriptCode> E code(String name, Class<E> codes) {
        return code(text(name), codes, script + "'s " + name);
    }

    /** The constant of {@code codes} whose code this is; {@code where} names the reply for the error. */
    public static <E extends Enum<E> & ScriptCode> E code(String code, Class<E> codes, String where) {
        for (E constant : codes.getEnumConstants()) {
            if (constant.code().equals(code)) {
                return constant;
            }
        }
        throw new IllegalStateException(where + " = '" + code + "', which " + codes.getSimpleName() + " does not know");
    }

    private Object field(String name) {
        Object value = fields.get(name);
        if (value == null) {
            throw new IllegalStateException(script + " replied without the field '" + name + "': " + fields);
        }
        return value;
    }
}
