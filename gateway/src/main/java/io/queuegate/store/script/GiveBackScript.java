package io.queuegate.store.script;

import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/** {@code give_back.lua}: gives back a completion claim, if the request giving it back still holds it. */
public final class GiveBackScript extends ProductScript {

    public GiveBackScript(ScriptRunner runner) {
        super(runner, "give_back.lua");
    }

    /** @return whether the claim was this request's and is released */
    public Mono<Boolean> run(String productId, String userId, String claim) {
        return fields(productId, userId, claim).map(reply -> reply.flag("released"));
    }
}
