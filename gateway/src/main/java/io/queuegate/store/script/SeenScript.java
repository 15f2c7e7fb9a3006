package io.queuegate.store.script;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/** {@code seen.lua}: marks, in one call, the users an instance answered from its own view of the line. */
public final class SeenScript extends ProductScript {

    public SeenScript(ScriptRunner runner) {
        super(runner, "seen.lua");
    }

    /** @return how many tickets were marked */
    public Mono<Long> run(String productId, long now, Collection<Long> tickets) {
        List<String> args = new ArrayList<>(tickets.size() + 1);
        args.add(Long.toString(now));
        tickets.forEach(ticket -> args.add(Long.toString(ticket)));
        return fields(productId, args.toArray(String[]::new)).map(reply -> reply.number("marked"));
    }
}
