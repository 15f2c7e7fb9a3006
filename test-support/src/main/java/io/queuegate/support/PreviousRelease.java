package io.queuegate.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.store.QueueKeys;

/**
 * An instance of the previous release (0.1.0) serving one product, as far as Redis sees it: its
 * Lua scripts, kept in the test resources, run as it ran them, with the arguments it passed. For
 * rolling upgrades, where instances of both releases serve the same product at once.
 */
public final class PreviousRelease {

    /** Its route in the tests: max-active 2, sessions of 10 minutes, pubsub promotion. */
    public static final int MAX_ACTIVE = 2;

    private final RedisCommands<String, String> redis;
    private final String productId;
    private final String[] keys;
    private final String join = script("join.lua");
    private final String leave = script("leave.lua");

    public PreviousRelease(RedisCommands<String, String> redis, String productId) {
        this.redis = redis;
        this.productId = productId;
        this.keys = QueueKeys.of(productId).forScripts().toArray(String[]::new);
    }

    /**
     * Its join.lua under the route (max-active 2, 10 minutes, pubsub) and the default drop rules.
     * It answered {@code {state, rank, promoted, enqueued, rate}}: state 1 active, 0 waiting, 2 in a
     * pre-queue (rank: how many are in it).
     */
    public List<Object> join(String user, long now) {
        return join(user, now, MAX_ACTIVE, "", "");
    }

    /**
     * Its join.lua for a scheduled sale: {@code seed} is what the previous release drew for a draw
     * the call may open (53 random bits in decimal; {@code ""} made the script take Redis's clock).
     */
    public List<Object> joinSale(String user, long now, int maxActive, long opensAt, String seed) {
        return join(user, now, maxActive, Long.toString(opensAt), seed);
    }

    private List<Object> join(String user, long now, int maxActive, String opensAt, String seed) {
        return redis.eval(join, ScriptOutputType.MULTI, keys, user, Long.toString(now), Integer.toString(maxActive),
                "600000", "pubsub", "7800000", opensAt, "", "0", "60000", "60000", seed);
    }

    public List<Object> leave(String user, long now) {
        return redis.eval(leave, ScriptOutputType.MULTI, keys, user, Long.toString(now),
                "qg:slot-available:" + productId);
    }

    /** As 0.1.0's QueueScripts built a script: line.lua and fill.lua, then the script. */
    private static String script(String name) {
        return read("line.lua") + read("fill.lua") + read(name);
    }

    private static String read(String name) {
        try (InputStream in = PreviousRelease.class.getResourceAsStream("/upgrade/0.1.0/lua/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
