package io.queuegate.store.script;

import java.time.Duration;

import io.queuegate.store.Placement;
import io.queuegate.store.ProductRules;
import io.queuegate.store.ScriptReply;
import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/** {@code join.lua}: enters a user into a product's line, or finds where they stand. */
public final class JoinScript extends ProductScript {

    public JoinScript(ScriptRunner runner) {
        super(runner, "join.lua");
    }

    /**
     * @param now the time the script decides at (epoch ms)
     * @param idle how long the product's keys outlive its last visitor
     * @param drawSeed the seed of a pre-queue's draw, in case this join opens one; {@code ""}
     *                 when the product has no opens-at
     * @param completing whether the request would complete the session: an active user must
     *                   claim the completion ({@link Placement.State#COMPLETING} when another holds it)
     */
    public record Args(String productId, String userId, long now, ProductRules rules, Duration idle, String drawSeed,
            boolean completing) {
    }

    /**
     * @param promoted users this call admitted (the caller among them, when admitted at once)
     * @param enqueued whether this call put the user at the back of the line (a new join, not a poll)
     */
    public record Result(Placement placement, long promoted, boolean enqueued) {
    }

    public Mono<Result> run(Args args) {
        ProductRules rules = args.rules();
        return fields(args.productId(), args.userId(), Long.toString(args.now()),
                Integer.toString(rules.maxActive()), Long.toString(rules.sessionTtl().toMillis()), rules.strategy(),
                Long.toString(args.idle().toMillis()),
                rules.opensAt() == null ? "" : Long.toString(rules.opensAt().toEpochMilli()),
                rules.closesAt() == null ? "" : Long.toString(rules.closesAt().toEpochMilli()),
                Integer.toString(rules.maxAdmitPerMinute()), Long.toString(rules.abandonAfter().toMillis()),
                Long.toString(rules.arrivalTtl().toMillis()), args.drawSeed(), args.completing() ? "1" : "0")
                .map(JoinScript::result);
    }

    static Result result(ScriptReply reply) {
        Placement placement = new Placement(reply.code("state", Placement.State.class), reply.number("rank"),
                reply.number("rate") / 1_000_000.0);
        return new Result(placement, reply.number("promoted"), reply.flag("enqueued"));
    }
}
