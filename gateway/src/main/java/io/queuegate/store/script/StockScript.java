package io.queuegate.store.script;

import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/** {@code stock.lua}: the shop's {@code Queue-Stock} on an answer that completes nothing; only ever lowers it. */
public final class StockScript extends ProductScript {

    public StockScript(ScriptRunner runner) {
        super(runner, "stock.lua");
    }

    /**
     * @param stock units left after the call, -1 when Redis holds nothing of the product
     * @param changed whether the call lowered it
     * @param soldOut whether the call sold the product out
     */
    public record Result(long stock, boolean changed, boolean soldOut) {
    }

    public Mono<Result> run(String productId, long unitsLeft, long now) {
        if (unitsLeft < 0) {
            throw new IllegalArgumentException("a stock is never negative");
        }
        return fields(productId, Long.toString(unitsLeft), Long.toString(now))
                .map(reply -> new Result(reply.number("stock"), reply.flag("changed"), reply.flag("sold_out")));
    }
}
