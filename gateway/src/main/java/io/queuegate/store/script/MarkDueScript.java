package io.queuegate.store.script;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.queuegate.store.LuaScript;
import io.queuegate.store.QueueKeys;
import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/** {@code mark_due.lua}: adds products to the due index at a time, or moves them earlier, never later. */
public final class MarkDueScript {

    private final ScriptRunner runner;
    private final LuaScript script = LuaScript.load("mark_due.lua");

    public MarkDueScript(ScriptRunner runner) {
        this.runner = runner;
    }

    /** @param dueAt product id to when it is due (epoch ms) */
    public Mono<Void> run(Map<String, Long> dueAt) {
        if (dueAt.isEmpty()) {
            return Mono.empty();
        }
        List<String> args = new ArrayList<>(dueAt.size() * 2);
        dueAt.forEach((productId, when) -> {
            args.add(Long.toString(when));
            args.add(productId);
        });
        return runner.fields(script, List.of(QueueKeys.DUE), args).then();
    }
}
