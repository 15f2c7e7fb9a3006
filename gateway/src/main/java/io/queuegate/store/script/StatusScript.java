package io.queuegate.store.script;

import java.time.Duration;
import java.time.Instant;

import io.queuegate.room.PlaceStatus;
import io.queuegate.room.Placement;
import io.queuegate.room.Reclaim;
import io.queuegate.room.Stock;
import io.queuegate.store.ScriptReply;
import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/** {@code status.lua}: where a user stands, without joining. */
public final class StatusScript extends ProductScript {

    public StatusScript(ScriptRunner runner) {
        super(runner, "status.lua");
    }

    public Mono<PlaceStatus> run(String productId, String userId, long now) {
        return run(productId, userId, now, null);
    }

    /**
     * @param reclaim what the user's token proves that Redis may have lost after a loss, brought
     *                back first ({@link Reclaim}); {@code null} for nothing
     */
    public Mono<PlaceStatus> run(String productId, String userId, long now, Reclaim reclaim) {
        return fields(productId, userId, Long.toString(now), reclaim(reclaim)).map(StatusScript::result);
    }

    static PlaceStatus result(ScriptReply reply) {
        long opens = reply.number("opens");
        long ticket = reply.number("ticket");
        String commitment = reply.text("commitment");
        return new PlaceStatus(new Placement(reply.code("state", Placement.State.class), reply.number("rank"),
                reply.number("rate") / 1_000_000.0), opens < 0 ? null : Instant.ofEpochMilli(opens),
                Duration.ofMillis(reply.number("abandon")), reply.flag("timed"), ticket == 0 ? null : ticket,
                commitment.isEmpty() ? null : commitment,
                Stock.of(reply.number("stock"), reply.number("admitted"), reply.number("units")));
    }
}
