package io.queuegate.store.script;

import io.queuegate.room.PromotionOutcome;
import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/** {@code promote.lua}: one promotion pass for one product. */
public final class PromoteScript extends ProductScript {

    public PromoteScript(ScriptRunner runner) {
        super(runner, "promote.lua");
    }

    /**
     * @param moved users admitted
     * @param abandoned users dropped from the line as not seen lately (abandon-after)
     */
    public record Result(PromotionOutcome outcome, long moved, long abandoned) {

        public Result(PromotionOutcome outcome, long moved) {
            this(outcome, moved, 0);
        }
    }

    /** @param onlyStrategy promote only when the product uses this strategy; empty for any */
    public Mono<Result> run(String productId, long now, String onlyStrategy) {
        return fields(productId, Long.toString(now), onlyStrategy)
                .map(reply -> new Result(reply.code("outcome", PromotionOutcome.class), reply.number("moved"),
                        reply.number("abandoned")));
    }
}
