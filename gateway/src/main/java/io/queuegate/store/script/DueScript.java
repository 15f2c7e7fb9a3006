package io.queuegate.store.script;

import io.queuegate.room.PromotionOutcome;
import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/** {@code due.lua}: one safety-net promotion of a product from the due index, and when it is next due. */
public final class DueScript extends ProductScript {

    /** {@link Result#nextDue()}: no promotion is due until a new event (a join, an operator's change). */
    public static final long ON_EVENT = -1;

    /** {@link Result#nextDue()}: skipped for its strategy, so its place in the index stays as it is. */
    public static final long UNCHANGED = -2;

    public DueScript(ScriptRunner runner) {
        super(runner, "due.lua");
    }

    /**
     * @param moved users admitted
     * @param nextDue when the product is next due (epoch ms), or {@link #ON_EVENT} or {@link #UNCHANGED}
     * @param timed whether its promotion runs on a clock of its own (opens-at or a pace)
     * @param abandoned users dropped from the line as not seen lately (abandon-after)
     */
    public record Result(PromotionOutcome outcome, long moved, long nextDue, boolean timed, long abandoned) {
    }

    /** @param onlyStrategy promote only when the product uses this strategy; empty for any */
    public Mono<Result> run(String productId, long now, String onlyStrategy) {
        return fields(productId, Long.toString(now), onlyStrategy)
                .map(reply -> new Result(reply.code("outcome", PromotionOutcome.class), reply.number("moved"),
                        reply.number("next"), reply.flag("timed"), reply.number("abandoned")));
    }
}
