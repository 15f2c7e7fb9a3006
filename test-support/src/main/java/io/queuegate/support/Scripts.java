package io.queuegate.support;

import java.time.Duration;
import java.util.List;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.queuegate.room.AdminAction;
import io.queuegate.room.PlaceStatus;
import io.queuegate.store.DrawSeed;
import io.queuegate.store.ProductRules;
import io.queuegate.store.QueueScripts;
import io.queuegate.store.QueueSnapshot;
import io.queuegate.store.RedisGuard;
import io.queuegate.store.Resilience4jBreaker;
import io.queuegate.store.ScriptEpoch;
import io.queuegate.store.ScriptRunner;
import io.queuegate.store.StaleProductException;
import io.queuegate.store.script.StreamTakeoverScript;
import io.queuegate.store.script.DueScript;
import io.queuegate.store.script.ExpireScript;
import io.queuegate.store.script.JoinScript;
import io.queuegate.store.script.LeaveScript;
import io.queuegate.store.script.PromoteScript;
import io.queuegate.store.script.RecoverScript;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import reactor.core.publisher.Mono;

/**
 * QueueGate's scripts on a test Redis, through their typed adapters and the same runner the
 * gateway uses, one call at a time with the {@code now} the test chooses: the script tests speak
 * in the adapters' types, never in a reply's positions.
 */
public final class Scripts implements AutoCloseable {

    /** The seed a test's pre-queue draw is opened with, and its commitment; any text would do. */
    public static final DrawSeed SEED = DrawSeed.of("4711");

    /** The epoch of the Redis data the scripts are told they run in, unless a test says otherwise. */
    public static final String EPOCH = "00000000000000e1";

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final LettuceConnectionFactory connections;
    private final QueueScripts scripts;

    private Scripts(LettuceConnectionFactory connections, ScriptEpoch epoch) {
        this.connections = connections;
        ReactiveStringRedisTemplate template = new ReactiveStringRedisTemplate(connections);
        RedisGuard guard = new RedisGuard(new Resilience4jBreaker(CircuitBreaker.ofDefaults("test")), WAIT);
        this.scripts = new QueueScripts(new ScriptRunner(template, guard, epoch));
    }

    /** The scripts in {@link #EPOCH}, with no loss being recovered. */
    public static Scripts on(RedisProcess redis) {
        return on(redis, ScriptEpoch.fixed(EPOCH, false));
    }

    /** The scripts in the epoch {@code epoch} says (a test of a loss changes it between calls). */
    public static Scripts on(RedisProcess redis, ScriptEpoch epoch) {
        LettuceConnectionFactory connections = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", redis.port()));
        connections.afterPropertiesSet();
        connections.start();
        return new Scripts(connections, epoch);
    }

    public QueueScripts scripts() {
        return scripts;
    }

    /** A join with the product's rules, a seed for a draw it may open, and no completion claimed. */
    public JoinScript.Result join(String productId, String userId, long now, ProductRules rules, Duration idle) {
        return join(new JoinScript.Args(productId, userId, now, rules, idle, rules.opensAt() == null ? null : SEED, null));
    }

    public JoinScript.Result join(JoinScript.Args args) {
        return adopting(args.productId(), args.now(), scripts.join().run(args));
    }

    public PlaceStatus status(String productId, String userId, long now) {
        return adopting(productId, now, scripts.status().run(productId, userId, now));
    }

    public LeaveScript.Result leave(String productId, String userId, long now) {
        return adopting(productId, now, scripts.leave().run(productId, userId, now));
    }

    /**
     * A call's result, asking again once after the product's state is adopted into the epoch when
     * the script declined (state written by the previous release), as the gateway's store does
     * when no loss is being recovered.
     */
    private <T> T adopting(String productId, long now, Mono<T> call) {
        return call.onErrorResume(StaleProductException.class, stale -> scripts.recover()
                .run(productId, new RecoverScript.Args(now, Duration.ofHours(1), now, true, null,
                        RecoverScript.Knowledge.NONE))
                .then(call)).block(WAIT);
    }

    public ExpireScript.Result expire(String productId, String userId, long now) {
        return scripts.expire().run(productId, userId, now).block(WAIT);
    }

    public PromoteScript.Result promote(String productId, long now, String onlyStrategy) {
        return scripts.promote().run(productId, now, onlyStrategy).block(WAIT);
    }

    public DueScript.Result due(String productId, long now, String onlyStrategy) {
        return scripts.due().run(productId, now, onlyStrategy).block(WAIT);
    }

    public long admin(String productId, AdminAction action, String value, long now) {
        return adopting(productId, now, scripts.admin().run(productId, action, value, now)).promoted();
    }

    public QueueSnapshot snapshot(String productId, long now) {
        return scripts.snapshot().run(productId, now).block(WAIT);
    }

    public List<String> peek(String productId, int limit) {
        return scripts.peek().run(productId, limit).block(WAIT);
    }

    public List<StreamTakeoverScript.TakenOver> takeOver(String group, String consumer, Duration minIdle, int batch,
            Duration forgetConsumersAfter) {
        return scripts.streamTakeover().run(group, consumer, minIdle, batch, forgetConsumersAfter).collectList().block(WAIT);
    }

    @Override
    public void close() {
        connections.destroy();
    }
}
