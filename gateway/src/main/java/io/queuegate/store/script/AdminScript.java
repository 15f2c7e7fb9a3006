package io.queuegate.store.script;

import io.queuegate.room.AdminAction;
import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/** {@code admin.lua}: an operator's change to one product, for every instance at once. */
public final class AdminScript extends ProductScript {

    public AdminScript(ScriptRunner runner) {
        super(runner, "admin.lua");
    }

    /**
     * @param promoted users admitted by the change
     * @param abandoned users dropped from the line as not seen lately on the way
     * @param stock units left after the change, -1 while unknown
     * @param soldOut whether the change sold the product out
     */
    public record Result(long promoted, long abandoned, long stock, boolean soldOut) {

        public Result(long promoted, long abandoned) {
            this(promoted, abandoned, -1, false);
        }
    }

    /**
     * @param value the new max-active for {@link AdminAction#MAX} ("" = back to the route's), the
     *              room mode's code for {@link AdminAction#MODE}, the units left for
     *              {@link AdminAction#STOCK} ("" = unknown), else ""
     */
    public Mono<Result> run(String productId, AdminAction action, String value, long now) {
        return fields(productId, action.code(), value, Long.toString(now))
                .map(reply -> new Result(reply.number("promoted"), reply.number("abandoned"), reply.number("stock"),
                        reply.flag("sold_out")));
    }
}
