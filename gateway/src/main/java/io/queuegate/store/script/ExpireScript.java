package io.queuegate.store.script;

import io.queuegate.room.ExpiryOutcome;
import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/** {@code expire.lua}: Redis's expiry of a session's slot key, handled once across all instances. */
public final class ExpireScript extends ProductScript {

    public ExpireScript(ScriptRunner runner) {
        super(runner, "expire.lua");
    }

    /**
     * @param promoted users admitted into the freed place
     * @param abandoned users dropped from the line as not seen lately on the way to it
     */
    public record Result(ExpiryOutcome outcome, long promoted, long abandoned) {

        public Result(ExpiryOutcome outcome, long promoted) {
            this(outcome, promoted, 0);
        }
    }

    public Mono<Result> run(String productId, String userId, long now) {
        return fields(productId, userId, Long.toString(now))
                .map(reply -> new Result(reply.code("outcome", ExpiryOutcome.class), reply.number("promoted"),
                        reply.number("abandoned")));
    }
}
