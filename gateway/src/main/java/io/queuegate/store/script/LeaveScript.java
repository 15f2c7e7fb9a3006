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
     * @param stock units left after the call, -1 while unknown
     * @param soldOut whether this completion sold the product out
     */
    public record Result(boolean held, long promoted, boolean toStream, long abandoned, long stock, boolean soldOut) {

        public Result(boolean held, long promoted, boolean toStream) {
            this(held, promoted, toStream, 0, -1, false);
        }
    }

    /**
     * What a completion sold, for the stock: {@link #LEAVE} for none (a leave, or an end that
     * bought nothing), {@link #sold()} when the shop's answer named no stock, {@link #shopSays}
     * the units left it named.
     */
    public record Sale(String argument) {

        public static final Sale LEAVE = new Sale("");

        public static Sale sold() {
            return new Sale("sold");
        }

        /** Whether the shop's answer named the units left (else the sale counts a given stock down). */
        public boolean shopSaid() {
            return !argument.isEmpty() && !argument.equals("sold");
        }

        public static Sale shopSays(long unitsLeft) {
            if (unitsLeft < 0) {
                throw new IllegalArgumentException("a stock is never negative");
            }
            return new Sale(Long.toString(unitsLeft));
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
        return run(productId, userId, now, drop, Sale.LEAVE);
    }

    /** @param sale what a completion of an admitted user sold, for the stock */
    public Mono<Result> run(String productId, String userId, long now, boolean drop, Sale sale) {
        return fields(productId, userId, Long.toString(now), drop ? "drop" : "", sale.argument())
                .map(reply -> new Result(reply.flag("held"), reply.number("promoted"), reply.flag("stream"),
                        reply.number("abandoned"), reply.number("stock"), reply.flag("sold_out")));
    }
}
