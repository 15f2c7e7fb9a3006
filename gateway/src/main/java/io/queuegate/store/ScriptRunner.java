package io.queuegate.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.ReactiveRedisConnection;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultReactiveScriptExecutor;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.data.redis.serializer.RedisElementReader;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Runs QueueGate's scripts: by SHA, through the {@link RedisGuard} (timeout and circuit breaker),
 * with a script error's line traced back to the file of {@code lua/} it came from. A product's
 * script is given the {@link RedisEpoch} it runs in, read before the first script of every
 * connection; when Redis answers NOSCRIPT it has forgotten the scripts (a restart, a failover, a
 * {@code SCRIPT FLUSH}), so the epoch is read again before the script is loaded and run.
 *
 * <p>A script is loaded ({@code SCRIPT LOAD}, on every node of a cluster) before its first call,
 * and again before its first call after Redis forgot them: one small round trip, where a first
 * call by SHA would be answered NOSCRIPT, make the epoch be read again as if Redis had lost its
 * data, and be sent again with the script's whole text. After a restart at a drop's peak that
 * would be every call in flight.
 */
public final class ScriptRunner {

    private final ReactiveStringRedisTemplate redis;
    private final RedisGuard guard;
    private final ScriptEpoch epoch;
    private final Executor bySha;
    private final Executor loading;
    /** Each script's load into the Redis of now, made once; cleared when Redis forgets them. */
    private final Map<LuaScript, Mono<Void>> loads = new ConcurrentHashMap<>();

    public ScriptRunner(ReactiveStringRedisTemplate redis, RedisGuard guard, ScriptEpoch epoch) {
        this.redis = redis;
        this.guard = guard;
        this.epoch = epoch;
        this.bySha = new Executor(redis, false);
        this.loading = new Executor(redis, true);
    }

    /** Runs a script that replies with named fields. */
    public Mono<ScriptReply> fields(LuaScript script, List<String> keys, List<String> args) {
        return list(script, keys, args).map(values -> ScriptReply.of(script.name(), values));
    }

    /** Runs a script that replies with a list (or a single value, as a list of one). */
    public Mono<List<Object>> list(LuaScript script, List<String> keys, List<String> args) {
        return run(script, keys, Mono.just(""), current -> args);
    }

    /**
     * Runs a script of one product, which replies with named fields: its arguments are the
     * product id, the epoch ({@link RedisEpoch#argument}), then {@code args}. A reply that asks
     * for the product's recovery fails with {@link StaleProductException}.
     */
    public Mono<ScriptReply> productFields(LuaScript script, String productId, List<String> keys, List<String> args) {
        return productList(script, productId, keys, args).map(values -> ScriptReply.of(script.name(), values));
    }

    /** {@link #productFields} for a script that replies with a plain list. */
    public Mono<List<Object>> productList(LuaScript script, String productId, List<String> keys, List<String> args) {
        return run(script, keys, Mono.defer(epoch::argument), current -> productArguments(productId, current, args)).flatMap(values -> StaleProductException.REPLY.equals(values.isEmpty() ? null : values.get(0))
                ? Mono.error(new StaleProductException(productId)) : Mono.just(values));
    }

    /**
     * A product script's arguments as Redis receives them: the product id, the epoch argument
     * ({@link RedisEpoch#argument}), then the script's own. Public for callers that send a script
     * raw (the benchmarks pipeline it), so the order is written once.
     */
    public static List<String> productArguments(String productId, String epochArgument, List<String> args) {
        List<String> all = new ArrayList<>(args.size() + 2);
        all.add(productId);
        all.add(epochArgument);
        all.addAll(args);
        return all;
    }

    /** @param epochArgument the epoch argument the call needs ({@code ""} for a script of no product) */
    private Mono<List<Object>> run(LuaScript script, List<String> keys, Mono<String> epochArgument,
            Function<String, List<String>> args) {
        Mono<List<Object>> call = loaded(script).then(epochArgument)
                .flatMap(current -> bySha.run(script, keys, args.apply(current)))
                .onErrorResume(ScriptsForgotten.class, forgotten -> {
                    // Another server, or this one restarted: its data may not be what the epoch said.
                    epoch.forgotten();
                    loads.clear();
                    return loaded(script).then(epochArgument)
                            .flatMap(current -> loading.run(script, keys, args.apply(current)));
                });
        return guard.guard(call)
                .onErrorMap(RedisSystemException.class, error -> new RedisSystemException(
                        script.traced(error.getMostSpecificCause().getMessage()), error));
    }

    /**
     * Completes once {@code script} was sent to Redis to keep. A load that fails is not retried:
     * the call by SHA then fails as Redis does, or is answered NOSCRIPT and loads it again, which
     * also covers a Redis that refuses {@code SCRIPT LOAD} (the call falls back to EVAL).
     */
    private Mono<Void> loaded(LuaScript script) {
        return loads.computeIfAbsent(script, unloaded -> redis
                .execute(connection -> connection.scriptingCommands()
                        .scriptLoad(ByteBuffer.wrap(unloaded.source().getBytes(StandardCharsets.UTF_8))))
                .then()
                .onErrorComplete()
                .cache());
    }

    /** Redis answered NOSCRIPT to a call by SHA. */
    static final class ScriptsForgotten extends RuntimeException {

        ScriptsForgotten() {
            super("Redis does not know the script", null, false, false);
        }
    }

    /**
     * Spring's script executor, telling a NOSCRIPT answer apart ({@link ScriptsForgotten}) unless
     * it may load the script (EVAL) at once.
     */
    private static final class Executor extends DefaultReactiveScriptExecutor<String> {

        private final boolean loads;

        Executor(ReactiveStringRedisTemplate redis, boolean loads) {
            super(redis.getConnectionFactory(), redis.getSerializationContext());
            this.loads = loads;
        }

        @SuppressWarnings({ "unchecked", "rawtypes" })
        Mono<List<Object>> run(LuaScript script, List<String> keys, List<String> args) {
            return execute((RedisScript) script.redisScript(), keys, args)
                    // The executor hands a list over in parts; they make one reply.
                    .reduce(new ArrayList<Object>(), (all, part) -> {
                        ((List<Object>) all).addAll((List<Object>) part);
                        return all;
                    })
                    .map(all -> (List<Object>) all);
        }

        @Override
        protected <T> Flux<T> eval(ReactiveRedisConnection connection, RedisScript<T> script, ReturnType returnType,
                int numKeys, ByteBuffer[] keysAndArgs, RedisElementReader<T> resultReader) {
            if (loads) {
                return super.eval(connection, script, returnType, numKeys, keysAndArgs, resultReader);
            }
            Flux<T> result = connection.scriptingCommands().<T>evalSha(script.getSha1(), returnType, numKeys,
                    keysAndArgs).onErrorResume(cause -> Flux.error(noScript(cause) ? new ScriptsForgotten()
                            : cause instanceof RuntimeException runtime ? runtime
                                    : new RedisSystemException(cause.getMessage(), cause)));
            return script.returnsRawValue() ? result : deserializeResult(resultReader, result);
        }

        /** Whether Redis answered NOSCRIPT (as Spring's own executor tells it). */
        private static boolean noScript(Throwable error) {
            for (Throwable cause = error; cause != null; cause = cause.getCause()) {
                if (cause.getMessage() != null && cause.getMessage().contains("NOSCRIPT")) {
                    return true;
                }
            }
            return false;
        }
    }
}
