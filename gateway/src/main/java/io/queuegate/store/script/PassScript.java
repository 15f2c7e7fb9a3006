package io.queuegate.store.script;

import java.util.ArrayList;
import java.util.List;

import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/**
 * {@code pass.lua}: confirms, in one call that only reads (the settings' epoch and mode, the
 * sessions), that admitted shoppers of one product still hold their sessions.
 */
public final class PassScript extends ProductScript {

    public PassScript(ScriptRunner runner) {
        super(runner, "pass.lua");
    }

    /**
     * @param userIds the shoppers, answered in this order
     * @return for each shopper the session's end (epoch ms) when Redis confirms it, else {@code null}:
     *         the long way decides
     */
    public Mono<List<Long>> run(String productId, long now, List<String> userIds) {
        List<String> args = new ArrayList<>(userIds.size() + 1);
        args.add(Long.toString(now));
        args.addAll(userIds);
        return fields(productId, args.toArray(String[]::new)).map(reply -> {
            List<Long> ends = new ArrayList<>(userIds.size());
            for (Object end : reply.list("ends")) {
                long millis = ((Number) end).longValue();
                ends.add(millis > 0 ? millis : null);
            }
            return ends;
        });
    }
}
