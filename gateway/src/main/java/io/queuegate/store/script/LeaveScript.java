package io.queuegate.store.script;

import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/** {@code leave.lua}: ends a user's place (a completion or a leave) and refills it. */
public final class LeaveScript extends ProductScript {

    public LeaveScript(ScriptRunner runner) {
        super(runner, "leave.lua");
    }

    /**
     * @param held whether the user held a place
     * @param promoted users admitted into the freed place
     * @param toStream whether the product's slot-free event goes to the stream ({@code promotion: stream})
     * @param abandoned users dropped from the line as not seen lately on the way to the freed place
     */
    public record Result(boolean held, long promoted, boolean toStream, long abandoned) {

        public Result(boolean held, long promoted, boolean toStream) {
            this(held, promoted, toStream, 0);
        }
    }

    public Mono<Result> run(String productId, String userId, long now) {
        return run(productId, userId, now, false);
    }

    /**
     * @param drop whether the product loses every key once it is left with nobody in it and no
     *             operator's setting (the shop said it sells no such product)
     */
    public Mono<Result> run(String productId, String userId, long now, boolean drop) {
        return fields(productId, userId, Long.toString(now), drop ? "drop" : "")
                .map(reply -> new Result(reply.flag("held"), reply.number("promoted"), reply.flag("stream"),
                        reply.number("abandoned")));
    }
}
