package io.queuegate.store.script;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Mono;

/** {@code ended.lua}: the places and sessions of a product that ended lately, and when. */
public final class EndedScript extends ProductScript {

    public EndedScript(ScriptRunner runner) {
        super(runner, "ended.lua");
    }

    /** @return user id to when their place or session ended (epoch ms), the latest first */
    public Mono<Map<String, Long>> run(String productId) {
        return list(productId).map(EndedScript::byUser);
    }

    private static Map<String, Long> byUser(List<Object> reply) {
        Map<String, Long> ended = new LinkedHashMap<>();
        for (int i = 0; i + 1 < reply.size(); i += 2) {
            ended.put(String.valueOf(reply.get(i)), (long) Double.parseDouble(String.valueOf(reply.get(i + 1))));
        }
        return ended;
    }
}
