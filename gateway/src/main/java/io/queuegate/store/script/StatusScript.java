package io.queuegate.store.script;

import java.time.Duration;
import java.time.Instant;

import io.queuegate.room.Placement;
import io.queuegate.store.Reclaim;
import io.queuegate.room.Stock;
import io.queuegate.store.ScriptReply;
import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/** {@code status.lua}: where a user stands, without joining. */
public final class StatusScript extends ProductScript {

    public StatusScript(ScriptRunner runner) {
        super(runner, "status.lua");
    }

    /**
     * @param opensAt the product's opens-at, or {@code null}
     * @param abandonAfter the product's abandon-after, {@link Duration#ZERO} for never
     * @param timed whether the product's promotion runs on a clock of its own (opens-at or a pace)
     * @param ticket the user's ticket while in line (negative in the invited line), else {@code null}
     * @param seedCommitment the commitment to the seed of the product's last pre-queue draw, or
     *                       {@code null} when it has none
     * @param stock what the product has left to sell, {@code null} while unknown
     */
    public record Result(Placement placement, Instant opensAt, Duration abandonAfter, boolean timed, Long ticket,
            String seedCommitment, Stock stock) {

        /** A result for a product whose stock is unknown. */
        public Result(Placement placement, Instant opensAt, Duration abandonAfter, boolean timed, Long ticket,
                String seedCommitment) {
            this(placement, opensAt, abandonAfter, timed, ticket, seedCommitment, null);
        }
    }

    public Mono<Result> run(String productId, String userId, long now) {
        return run(productId, userId, now, null);
    }

    /**
     * @param reclaim what the user's token proves that Redis may have lost after a loss, brought
     *                back first ({@link Reclaim}); {@code null} for nothing
     */
    public Mono<Result> run(String productId, String userId, long now, Reclaim reclaim) {
        return fields(productId, userId, Long.toString(now), Reclaim.argument(reclaim)).map(StatusScript::result);
    }

    static Result result(ScriptReply reply) {
        long opens = reply.number("opens");
        long ticket = reply.number("ticket");
        String commitment = reply.text("commitment");
        return new Result(new Placement(reply.code("state", Placement.State.class), reply.number("rank"),
                reply.number("rate") / 1_000_000.0), opens < 0 ? null : Instant.ofEpochMilli(opens),
                Duration.ofMillis(reply.number("abandon")), reply.flag("timed"), ticket == 0 ? null : ticket,
                commitment.isEmpty() ? null : commitment,
                Stock.of(reply.number("stock"), reply.number("admitted"), reply.number("units")));
    }
}
