package io.queuegate.support;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.store.LuaScript;
import io.queuegate.store.script.JoinScript;

/**
 * Counts the script calls a test Redis receives, by script name, from its slow log set to record
 * every command: the tests that claim "no Redis call per poll" count the calls themselves, not a
 * gateway metric that could be wrong in the same way as the code.
 */
public final class ScriptCalls {

    private static final List<String> SCRIPTS = List.of("join.lua", "status.lua", "leave.lua", "expire.lua",
            "promote.lua", "due.lua", "admin.lua", "snapshot.lua", "peek.lua", "stream_takeover.lua", "reschedule.lua",
            "mark_due.lua", "seen.lua", "view.lua", "pass.lua");

    /** How the slow log ends a command it keeps only the first arguments of. */
    private static final Pattern MORE = Pattern.compile("\\.\\.\\. \\((\\d+) more arguments\\)");
    /** How the slow log ends an argument it keeps only the first bytes of. */
    private static final Pattern CUT = Pattern.compile("(?s)(.*)\\.\\.\\. \\(\\d+ more bytes\\)");

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

    /**
     * The users that the join.lua calls since the last reset carried, worked out from each call's
     * argument count: the slow log keeps a command's first 32 arguments and says how many more
     * there were. A call sent as EVAL (after Redis forgot the scripts) counts too: the slow log
     * keeps the first 128 bytes of its source.
     */
    public long usersJoined() {
        LuaScript join = LuaScript.load("join.lua");
        long users = 0;
        for (Object entry : redis.slowlogGet(-1)) {
            List<?> command = (List<?>) ((List<?>) entry).get(3);
            String name = String.valueOf(command.get(0));
            String script = String.valueOf(command.get(1));
            Matcher cut = CUT.matcher(script);
            boolean isJoin = name.equalsIgnoreCase("EVALSHA") ? join.sha1().equals(script)
                    : name.equalsIgnoreCase("EVAL") && join.source().startsWith(cut.matches() ? cut.group(1) : script);
            if (isJoin) {
                int arguments = command.size();
                Matcher more = MORE.matcher(String.valueOf(command.get(command.size() - 1)));
                if (more.matches()) {
                    arguments += Integer.parseInt(more.group(1)) - 1;
                }
                // EVALSHA, the script, the key count and the keys; then the product id and the epoch.
                int argv = arguments - 3 - Integer.parseInt(String.valueOf(command.get(2))) - 2;
                users += (argv - JoinScript.WORDS_BEFORE_USERS) / JoinScript.UserArgument.values().length;
            }
        }
        return users;
    }

    /** Back to Redis's defaults. */
    public void stop() {
        redis.configSet("slowlog-log-slower-than", "10000");
        redis.configSet("slowlog-max-len", "128");
    }
}
