package io.queuegate.store;

import java.util.ArrayList;
import java.util.List;

import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import reactor.core.publisher.Mono;

/**
 * Runs QueueGate's scripts: by SHA (Spring falls back to EVAL on NOSCRIPT), through the
 * {@link RedisGuard} (timeout and circuit breaker), with a script error's line traced back to
 * the file of {@code lua/} it came from.
 */
public final class ScriptRunner {

    private final ReactiveStringRedisTemplate redis;
    private final RedisGuard guard;

    public ScriptRunner(ReactiveStringRedisTemplate redis, RedisGuard guard) {
        this.redis = redis;
        this.guard = guard;
    }

    /** Runs a script that replies with named fields. */
    public Mono<ScriptReply> fields(LuaScript script, List<String> keys, List<String> args) {
        return list(script, keys, args).map(values -> ScriptReply.of(script.name(), values));
    }

    /** Runs a script that replies with a list (or a single value, as a list of one). */
    public Mono<List<Object>> list(LuaScript script, List<String> keys, List<String> args) {
        return guard.guard(redis.execute(script.redisScript(), keys, args)
                        // The template hands a list over in parts; they make one reply.
                        .reduce(new ArrayList<Object>(), (all, part) -> {
                            all.addAll(part);
                            return all;
                        })
                        .map(all -> (List<Object>) all))
                .onErrorMap(RedisSystemException.class, error -> new RedisSystemException(
                        script.traced(error.getMostSpecificCause().getMessage()), error));
    }
}
