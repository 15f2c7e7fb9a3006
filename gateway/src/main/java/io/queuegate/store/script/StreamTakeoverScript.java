package io.queuegate.store.script;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.queuegate.store.LuaScript;
import io.queuegate.store.QueueKeys;
import io.queuegate.store.ScriptRunner;

import reactor.core.publisher.Flux;

/** {@code stream_takeover.lua}: takes over slot events a dead instance read but never acknowledged. */
public final class StreamTakeoverScript {

    private final ScriptRunner runner;
    private final LuaScript script = LuaScript.load("stream_takeover.lua");

    public StreamTakeoverScript(ScriptRunner runner) {
        this.runner = runner;
    }

    /** One slot event, now owned by the consumer that took it over. */
    public record TakenOver(String eventId, String productId) {
    }

    public Flux<TakenOver> run(String group, String consumer, Duration minIdle, int batch, Duration forgetConsumersAfter) {
        return runner.list(script, List.of(QueueKeys.SLOT_EVENTS), List.of(group, consumer,
                        Long.toString(minIdle.toMillis()), Integer.toString(batch),
                        Long.toString(forgetConsumersAfter.toMillis())))
                .flatMapIterable(flat -> {
                    // The reply is documented as a plain list of (event id, product id) pairs.
                    List<TakenOver> taken = new ArrayList<>();
                    for (int i = 0; i + 1 < flat.size(); i += 2) {
                        taken.add(new TakenOver(String.valueOf(flat.get(i)), String.valueOf(flat.get(i + 1))));
                    }
                    return taken;
                });
    }
}
