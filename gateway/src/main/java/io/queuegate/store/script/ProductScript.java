package io.queuegate.store.script;

import java.util.List;

import io.queuegate.room.Reclaim;
import io.queuegate.store.LuaScript;
import io.queuegate.store.QueueKeys;
import io.queuegate.store.ScriptReply;
import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/**
 * What every script of one product shares: its keys ({@link QueueKeys#forScripts()}) and, as
 * its first arguments, the product id, from which {@code keys.lua} makes every other key, and the
 * epoch of the Redis data ({@link ScriptRunner#productFields}), which {@code keys.lua} takes out
 * again.
 */
abstract class ProductScript {

    private final ScriptRunner runner;
    private final LuaScript script;

    ProductScript(ScriptRunner runner, String file) {
        this.runner = runner;
        this.script = LuaScript.load(file);
    }

    /** The assembled script, for tools and tests that run it another way. */
    public LuaScript script() {
        return script;
    }

    Mono<ScriptReply> fields(String productId, String... args) {
        return runner.productFields(script, productId, QueueKeys.of(productId).forScripts(), List.of(args));
    }

    Mono<List<Object>> list(String productId, String... args) {
        return runner.productList(script, productId, QueueKeys.of(productId).forScripts(), List.of(args));
    }

    /**
     * Adds {@code words} to {@code argv} after their number, as {@code rules.lua}'s
     * {@code counted_words} reads a list that more arguments follow.
     */
    static void counted(List<String> argv, List<String> words) {
        argv.add(Integer.toString(words.size()));
        argv.addAll(words);
    }

    /** As the scripts read it: {@code s <end> <signed>} or {@code w <ticket>}; {@code ""} for none. */
    static String reclaim(Reclaim reclaim) {
        if (reclaim == null) {
            return "";
        }
        return reclaim.session() ? "s " + reclaim.value() + " " + reclaim.signedAt() : "w " + reclaim.value();
    }
}
