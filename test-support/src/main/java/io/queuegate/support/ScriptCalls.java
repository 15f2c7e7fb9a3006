package io.queuegate.support;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.store.LuaScript;

/**
 * Counts the script calls a test Redis receives, by script name, from its slow log set to record
 * every command: the tests that claim "no Redis call per poll" count the calls themselves, not a
 * gateway metric that could be wrong in the same way as the code.
 */
public final class ScriptCalls {

    private static final List<String> SCRIPTS = List.of("join.lua", "status.lua", "leave.lua", "expire.lua",
            "promote.lua", "due.lua", "admin.lua", "snapshot.lua", "peek.lua", "claim.lua", "reschedule.lua",
            "mark_due.lua", "seen.lua", "view.lua", "pass.lua");

    private final RedisCommands<String, String> redis;
    private final Map<String, String> names = new HashMap<>();

    private ScriptCalls(RedisCommands<String, String> redis) {
        this.redis = redis;
        SCRIPTS.forEach(name -> names.put(LuaScript.load(name).sha1(), name));
    }

    /** Starts counting from now on. */
    public static ScriptCalls on(RedisProcess redis) {
        ScriptCalls calls = new ScriptCalls(redis.commands());
        calls.redis.configSet("slowlog-log-slower-than", "0");
        calls.redis.configSet("slowlog-max-len", "1000000");
        calls.reset();
        return calls;
    }

    public void reset() {
        redis.slowlogReset();
    }

    /** The script calls since the last reset, by script name. */
    public Map<String, Long> counted() {
        Map<String, Long> counts = new HashMap<>();
        for (Object entry : redis.slowlogGet(-1)) {
            List<?> fields = (List<?>) entry;
            List<?> command = (List<?>) fields.get(3);
            String name = String.valueOf(command.get(0)).toUpperCase();
            if (name.equals("EVALSHA") || name.equals("EVAL")) {
                String script = name.equals("EVALSHA") ? names.getOrDefault(String.valueOf(command.get(1)), "other")
                        : "eval";
                counts.merge(script, 1L, Long::sum);
            }
        }
        return counts;
    }

    /** The calls since the last reset of these scripts, together. */
    public long of(String... scripts) {
        Map<String, Long> counts = counted();
        return Stream.of(scripts).mapToLong(script -> counts.getOrDefault(script, 0L)).sum();
    }

    /** Back to Redis's defaults. */
    public void stop() {
        redis.configSet("slowlog-log-slower-than", "10000");
        redis.configSet("slowlog-max-len", "128");
    }
}
