package io.queuegate.store.script;

import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/**
 * {@code stock.lua}: the shop's {@code Queue-Stock} on an answer that ends nothing, up or down,
 * unless its request was forwarded before the stock's last change.
 */
public final class StockScript extends ProductScript {

    public StockScript(ScriptRunner runner) {
        super(runner, "stock.lua");
    }

    /**
     * @param stock units left after the call, -1 when Redis holds nothing of the product
     * @param changed whether the call changed it
     * @param soldOut whether the call sold the product out
     * @param promoted users admitted into the places a raise freed
     * @param abandoned users dropped from the line as not seen lately on the way
     */
    public record Result(long stock, boolean changed, boolean soldOut, long promoted, long abandoned) {
    }

    /**
     * @param unitsLeft what the shop's answer said is left
     * @param forwardedAt when the request that answer is for was forwarded (epoch ms)
     */
    public Mono<Result> run(String productId, long unitsLeft, long now, long forwardedAt) {
        if (unitsLeft < 0) {
            throw new IllegalArgumentException("a stock is never negative");
        }
        return fields(productId, Long.toString(unitsLeft), Long.toString(now), Long.toString(forwardedAt))
                .map(reply -> new Result(reply.number("stock"), reply.flag("changed"), reply.flag("sold_out"),
                        reply.number("promoted"), reply.number("abandoned")));
    }
}
