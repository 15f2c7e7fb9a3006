package io.queuegate.support;

import java.util.List;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.store.LuaScript;
import io.queuegate.store.QueueKeys;

/** Reads a product's line the way the scripts keep it ({@code peek.lua}), for assertions. */
public final class Lines {

    private static final LuaScript PEEK = LuaScript.load("peek.lua");

    private Lines() {
    }

    /** The users in line, in order from the head (a pre-queue in ticket order until its sale opens). */
    public static List<String> of(RedisCommands<String, String> commands, String productId) {
        return head(commands, productId, 100_000);
    }

    /**
     * The first {@code limit} users in line. Through Lettuce's plain commands, so it can run
     * inside a MULTI that samples other keys in the same instant.
     */
    public static List<String> head(RedisCommands<String, String> commands, String productId, int limit) {
        return commands.eval(PEEK.source(), ScriptOutputType.MULTI, keys(productId), productId, Scripts.EPOCH,
                Integer.toString(limit));
    }

    /**
     * {@code peek.lua} as Redis runs it; its arguments are the product id, an epoch (it reads the
     * line whatever epoch it was written in: {@link Scripts#EPOCH} will do) and how many.
     */
    public static String script() {
        return PEEK.source();
    }

    public static String[] keys(String productId) {
        return QueueKeys.of(productId).forScripts().toArray(String[]::new);
    }
}
