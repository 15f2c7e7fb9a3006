package io.queuegate.store.script;

import java.util.List;

import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/** {@code peek.lua}: the first users in a product's line, in order, without changing anything. */
public final class PeekScript extends ProductScript {

    public PeekScript(ScriptRunner runner) {
        super(runner, "peek.lua");
    }

    public Mono<List<String>> run(String productId, int limit) {
        return list(productId, Integer.toString(limit))
                .map(users -> users.stream().map(String::valueOf).toList());
    }
}
