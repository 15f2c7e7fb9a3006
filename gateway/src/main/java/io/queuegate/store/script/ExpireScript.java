package io.queuegate.store.script;

import io.queuegate.store.ExpiryOutcome;
import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/** {@code expire.lua}: Redis's expiry of a session's slot key, handled once across all instances. */
public final class ExpireScript extends ProductScript {

    public ExpireScript(ScriptRunner runner) {
        super(runner, "expire.lua");
    }

    /** @param promoted users admitted into the freed place */
    public record Result(ExpiryOutcome outcome, long promoted) {
    }

    public Mono<Result> run(String productId, String userId, long now) {
        return fields(productId, userId, Long.toString(now))
                .map(reply -> new Result(reply.code("outcome", ExpiryOutcome.class), reply.number("promoted")));
    }
}
