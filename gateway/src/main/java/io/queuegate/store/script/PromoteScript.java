package io.queuegate.store.script;

import io.queuegate.store.PromotionOutcome;
import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/** {@code promote.lua}: one promotion pass for one product. */
public final class PromoteScript extends ProductScript {

    public PromoteScript(ScriptRunner runner) {
        super(runner, "promote.lua");
    }

    /** @param moved users admitted */
    public record Result(PromotionOutcome outcome, long moved) {
    }

    /** @param onlyStrategy promote only when the product uses this strategy; empty for any */
    public Mono<Result> run(String productId, long now, String onlyStrategy) {
        return fields(productId, Long.toString(now), onlyStrategy)
                .map(reply -> new Result(reply.code("outcome", PromotionOutcome.class), reply.number("moved")));
    }
}
