package io.queuegate.store.script;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

import io.queuegate.store.LuaScript;
import io.queuegate.store.QueueKeys;
import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/**
 * {@code reschedule.lua}: writes a safety-net pass's results back to the due index, keeping any
 * mark made since the pass read it.
 */
public final class RescheduleScript {

    private final ScriptRunner runner;
    private final LuaScript script = LuaScript.load("reschedule.lua");

    public RescheduleScript(ScriptRunner runner) {
        this.runner = runner;
    }

    /**
     * One product's result of a pass.
     *
     * @param readScore the score the pass read it at
     * @param nextDue when it is next due (epoch ms), or -1 to take it out of the index
     */
    public record Entry(String productId, double readScore, long nextDue) {
    }

    /** @return how many entries were written */
    public Mono<Long> run(List<Entry> entries) {
        if (entries.isEmpty()) {
            return Mono.just(0L);
        }
        List<String> args = new ArrayList<>(entries.size() * 3);
        for (Entry entry : entries) {
            args.add(entry.productId());
            args.add(BigDecimal.valueOf(entry.readScore()).toPlainString());
            args.add(Long.toString(entry.nextDue()));
        }
        return runner.fields(script, List.of(QueueKeys.DUE), args).map(reply -> reply.number("written"));
    }
}
