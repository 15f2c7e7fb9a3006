package io.queuegate.store.script;

import java.util.ArrayList;
import java.util.List;

import io.queuegate.store.LuaScript;
import io.queuegate.store.QueueKeys;
import io.queuegate.store.ScriptReply;
import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/**
 * What every script of one product shares: its keys ({@link QueueKeys#forScripts()}) and, as
 * its first argument, the product id, from which {@code keys.lua} makes every other key.
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
        return runner.fields(script, QueueKeys.of(productId).forScripts(), arguments(productId, args));
    }

    Mono<List<Object>> list(String productId, String... args) {
        return runner.list(script, QueueKeys.of(productId).forScripts(), arguments(productId, args));
    }

    private static List<String> arguments(String productId, String... args) {
        List<String> all = new ArrayList<>(args.length + 1);
        all.add(productId);
        all.addAll(List.of(args));
        return all;
    }
}
