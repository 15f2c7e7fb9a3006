package io.queuegate.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * and before its first call after Redis answered NOSCRIPT: a first call is then one call by SHA,
 * where it would be answered NOSCRIPT, make the epoch be read again as if Redis had lost its
 * data, and be sent again with the script's whole text.
 */
public final class ScriptRunner {

    private final ReactiveStringRedisTemplate redis;
    private final RedisGuard guard;
    private final ScriptEpoch epoch;
    private final Executor bySha;
    private final Executor loading;
    /** The longest a call waits for its script's load before it goes by SHA anyway. */
    static final Duration LOAD_WAIT = Duration.ofMillis(500);
    /** How long a failed load is not tried again. */
    static final Duration LOAD_RETRY = Duration.ofSeconds(1);

    /** The scripts loaded since Redis last answered NOSCRIPT. */
    private final Set<LuaScript> loaded = ConcurrentHashMap.newKeySet();
    /** Each script's load, shared while it runs. */
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
        Mono<List<Object>> call = ready(script).then(epochArgument)
                .flatMap(current -> bySha.run(script, keys, args.apply(current)))
                .onErrorResume(ScriptsForgotten.class, forgotten -> {
                    // Another server, or this one restarted: its data may not be what the epoch said.
                    epoch.forgotten();
                    // Later calls load their script first; this one is sent with its text, to
                    // whichever node answers it, rather than wait for a load that may be slow.
                    loaded.clear();
                    return epochArgument.flatMap(current -> loading.run(script, keys, args.apply(current)));
                });
        return guard.guard(call)
                .onErrorMap(RedisSystemException.class, error -> new RedisSystemException(
                        script.traced(error.getMostSpecificCause().getMessage()), error));
    }

    /**
     * Completes when {@code script} is in Redis's script cache, as far as this runner knows: at
     * once when it loaded it since Redis last answered NOSCRIPT, else after one {@code SCRIPT
     * LOAD} that the calls of the script in the meantime share. A load that fails, or takes longer
     * than {@link #LOAD_WAIT} (a cluster node that went away and is still listed), does not fail or
     * hold the call: it goes by SHA, and is sent with its text if refused.
     */
    private Mono<Void> ready(LuaScript script) {
        if (loaded.contains(script)) {
            return Mono.empty();
        }
        return loads.computeIfAbsent(script, this::load).timeout(LOAD_WAIT, Mono.empty()).onErrorComplete();
    }

    /**
     * One {@code SCRIPT LOAD} of {@code script}, shared by whoever asks while it runs. A failed one
     * is tried again only after {@link #LOAD_RETRY}, so a Redis that refuses {@code SCRIPT LOAD}
     * costs a command a while, not one a call.
     */
    private Mono<Void> load(LuaScript script) {
        byte[] source = script.source().getBytes(StandardCharsets.UTF_8);
        return redis.execute(connection -> connection.scriptingCommands().scriptLoad(ByteBuffer.wrap(source)))
                .then()
                .doOnSuccess(done -> loaded.add(script))
                .cache(done -> Duration.ZERO, failure -> LOAD_RETRY, () -> Duration.ZERO);
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
