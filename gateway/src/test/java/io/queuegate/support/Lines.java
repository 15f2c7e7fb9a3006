package io.queuegate.support;

import java.util.List;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.store.QueueKeys;
import io.queuegate.store.QueueScripts;

/** Reads a product's line the way the scripts keep it ({@code peek.lua}), for assertions. */
public final class Lines {

    private static final QueueScripts SCRIPTS = new QueueScripts();

    private Lines() {
    }

    /** The users in line, in order from the head (a pre-queue in ticket order until its sale opens). */
    public static List<String> of(RedisCommands<String, String> commands, String productId) {
        return commands.eval(script(), ScriptOutputType.MULTI, keys(productId), "100000");
    }

    /** {@code peek.lua} with what it is built on, to run inside a transaction: ARGV[1] = how many. */
    public static String script() {
        return SCRIPTS.peek().getScriptAsString();
    }

    public static String[] keys(String productId) {
        return QueueKeys.of(productId).forScripts().toArray(String[]::new);
    }
}
