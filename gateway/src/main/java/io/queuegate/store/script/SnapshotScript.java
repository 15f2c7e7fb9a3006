package io.queuegate.store.script;

import io.queuegate.store.QueueSnapshot;
import io.queuegate.room.RoomMode;
import io.queuegate.store.ScriptReply;
import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/** {@code snapshot.lua}: one product's queue as operators see it, read in one step. */
public final class SnapshotScript extends ProductScript {

    public SnapshotScript(ScriptRunner runner) {
        super(runner, "snapshot.lua");
    }

    public Mono<QueueSnapshot> run(String productId, long now) {
        return fields(productId, Long.toString(now)).map(SnapshotScript::snapshot);
    }

    static QueueSnapshot snapshot(ScriptReply reply) {
        long opened = reply.number("opened");
        String seed = reply.text("seed");
        String commitment = reply.text("commitment");
        QueueSnapshot.Opening opening = opened < 0 ? null : new QueueSnapshot.Opening(opened,
                seed.isEmpty() ? null : seed, reply.number("prequeued"), reply.number("draw_from"));
        return new QueueSnapshot(reply.number("waiting"), reply.number("active"), orNull(reply.number("max")),
                orNull(reply.number("max_override")), reply.code("mode", RoomMode.class), reply.flag("draining"),
                reply.number("rate") / 1_000_000.0, reply.flag("known"), opening, commitment.isEmpty() ? null : commitment,
                reply.number("abandoned"), stock(reply));
    }

    private static QueueSnapshot.StockState stock(ScriptReply reply) {
        long left = reply.number("stock");
        long soldOutAt = reply.number("sold_out_at");
        return left < 0 ? null : new QueueSnapshot.StockState(left, (int) reply.number("units"),
                reply.text("stock_src"), soldOutAt < 0 ? null : soldOutAt);
    }

    private static Integer orNull(long value) {
        return value < 0 ? null : (int) value;
    }
}
