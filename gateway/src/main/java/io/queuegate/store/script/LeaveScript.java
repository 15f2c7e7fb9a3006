package io.queuegate.store.script;

import java.time.Duration;

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
     * @param soldOut whether this call sold the product out
     */
    public record Result(boolean held, long promoted, boolean toStream, long abandoned, long stock, boolean soldOut) {

        public Result(boolean held, long promoted, boolean toStream) {
            this(held, promoted, toStream, 0, -1, false);
        }
    }

    /**
     * How a place ends, for the stock: {@link #LEAVE} sold nothing and the shop said nothing (an
     * explicit leave, an expiry); otherwise whether the shop's answer confirmed a sale, and what it
     * said is left ({@code Queue-Stock}, or {@code null}) of a request forwarded when.
     *
     * @param sale whether the shop confirmed a sale (a stock an operator or the setting gave then
     *             goes down by units-per-shopper, unless the shop said the units left)
     * @param unitsLeft the units left as the shop's answer said them, or {@code null}
     * @param forwardedAt when the request that answer is for was forwarded (epoch ms): a word on a
     *                    request forwarded before the stock's last change is ignored
     */
    public record Ending(boolean sale, Long unitsLeft, long forwardedAt) {

        public static final Ending LEAVE = new Ending(false, null, 0);

        public Ending {
            if (unitsLeft != null && unitsLeft < 0) {
                throw new IllegalArgumentException("a stock is never negative");
            }
        }

        /** A sale the shop confirmed, of a request forwarded at {@code forwardedAt}. */
        public static Ending sale(Long unitsLeft, long forwardedAt) {
            return new Ending(true, unitsLeft, forwardedAt);
        }

        /** An end that sold nothing (Queue-Release, a redirect that is no sale), with the shop's word. */
        public static Ending withoutSale(Long unitsLeft, long forwardedAt) {
            return new Ending(false, unitsLeft, forwardedAt);
        }

        /** Whether the shop's answer said the units left. */
        public boolean shopSaid() {
            return unitsLeft != null;
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
        return run(productId, userId, now, drop, Ending.LEAVE);
    }

    /** @param ending how the place ends, for the stock */
    public Mono<Result> run(String productId, String userId, long now, boolean drop, Ending ending) {
        return run(productId, userId, now, drop, ending, Duration.ZERO);
    }

    /**
     * @param tokenTtl how long a wait token lives: the end is kept in Redis for every gateway that
     *                 starts or recovers a loss this long (and a session) after it
     */
    public Mono<Result> run(String productId, String userId, long now, boolean drop, Ending ending,
            Duration tokenTtl) {
        return fields(productId, userId, Long.toString(now), drop ? "drop" : "", ending.sale() ? "sale" : "",
                ending.shopSaid() ? Long.toString(ending.unitsLeft()) : "",
                ending.shopSaid() ? Long.toString(ending.forwardedAt()) : "", Long.toString(tokenTtl.toMillis()))
                .map(reply -> new Result(reply.flag("held"), reply.number("promoted"), reply.flag("stream"),
                        reply.number("abandoned"), reply.number("stock"), reply.flag("sold_out")));
    }
}
