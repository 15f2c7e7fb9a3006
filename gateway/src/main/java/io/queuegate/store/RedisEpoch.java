package io.queuegate.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import reactor.core.publisher.Mono;

/**
 * The loss signal: the identity of the data in the Redis QueueGate talks to, its <em>epoch</em>.
 * It changes when the server's data may have changed under the gateway: {@code run_id} after a
 * restart (whatever AOF kept, the last second may be gone), {@code master_replid} after a
 * failover (a replica lacks the writes it had not received). Missing keys cannot tell this: a
 * replica promoted with an older copy has every key, only older. Read with {@code INFO} when the
 * gateway starts, again after every reconnection and whenever Redis has forgotten the scripts,
 * and before any script runs on the new connection: scripts are always given the epoch they run
 * in, and a product's state written under another one is recovered before anything is decided
 * on it ({@code recover.lua}).
 *
 * <p>Every epoch a gateway sees is noted in Redis ({@code qg:epochs}, epoch to the time it was
 * first seen), so an instance that starts later knows the one before, and the gateway keeps the
 * one it saw last in memory, for the Redis that forgot everything.
 */
public final class RedisEpoch implements ScriptEpoch {

    /** Where the epochs seen are noted: id to the epoch ms it was first seen at. */
    public static final String HISTORY_KEY = "qg:epochs";

    /** An epoch is forgotten from the history this long after it was first seen. */
    private static final Duration HISTORY = Duration.ofDays(7);

    private static final Log log = LogFactory.getLog(RedisEpoch.class);

    /**
     * One epoch of the Redis data.
     *
     * @param id 16 hex digits of a hash of the servers' identities
     * @param since when a gateway first saw it (epoch ms)
     * @param previous the epoch before it, or {@code null} when none is known: a Redis first
     *                 used now, or one that forgot everything while every gateway restarted too
     *                 (which nothing then tells from a first start)
     */
    public record Epoch(String id, long since, String previous) {

        /** Whether a loss at the start of this epoch is still being recovered at {@code now}. */
        public boolean recovering(long now, Duration window) {
            return previous != null && now < since + window.toMillis();
        }
    }

    private final ReactiveStringRedisTemplate redis;
    private final Clock clock;
    private final Duration window;
    private final AtomicReference<Mono<Epoch>> verified = new AtomicReference<>();
    private final List<Consumer<Epoch>> listeners = new CopyOnWriteArrayList<>();
    private volatile Epoch known;

    /** @param window how long after a loss its recovery lasts ({@code queuegate.recovery.window}) */
    public RedisEpoch(ReactiveStringRedisTemplate redis, Clock clock, Duration window) {
        this.redis = redis;
        this.clock = clock;
        this.window = window;
    }

    /**
     * The epoch of the data Redis holds now: read once per connection, and again after
     * {@link #suspect()}. Fails while Redis cannot be read.
     */
    public Mono<Epoch> current() {
        Mono<Epoch> current = verified.get();
        if (current == null) {
            Mono<Epoch> read = read().cache(epoch -> Duration.ofMillis(Long.MAX_VALUE), error -> Duration.ZERO,
                    () -> Duration.ZERO);
            current = verified.compareAndSet(null, read) ? read : verified.get();
            if (current == null) {
                return read;
            }
            Mono<Epoch> mine = current;
            return mine.doOnError(error -> verified.compareAndSet(mine, null));
        }
        return current;
    }

    /**
     * The epoch last read, without asking Redis; {@code null} before the first read. For those
     * who only label what they remember with it.
     */
    public Epoch known() {
        return known;
    }

    /** The argument product scripts take: the epoch's id, with {@code *} while its loss is recovered. */
    public String argument(Epoch epoch) {
        return epoch.recovering(clock.millis(), window) ? epoch.id() + "*" : epoch.id();
    }

    @Override
    public Mono<String> argument() {
        return current().map(this::argument);
    }

    @Override
    public void forgotten() {
        suspect();
    }

    /** The recovery window of {@code queuegate.recovery.window}. */
    public Duration window() {
        return window;
    }

    /**
     * The data may have changed (a connection was lost or made again, Redis forgot the scripts):
     * the next script call reads the epoch first.
     */
    public void suspect() {
        verified.set(null);
    }

    /** Called with every epoch read that differs from the one before (not with the first). */
    public void onChange(Consumer<Epoch> listener) {
        listeners.add(listener);
    }

    private Mono<Epoch> read() {
        Mono<Properties> server = redis.execute(connection -> connection.serverCommands().info("server")).next();
        Mono<Properties> replication = redis.execute(connection -> connection.serverCommands().info("replication"))
                .next();
        return Mono.zip(server, replication)
                .map(infos -> identity(infos.getT1(), infos.getT2()))
                .flatMap(this::noted)
                .doOnNext(this::adopt);
    }

    /**
     * The servers' identities as one id. {@code INFO} on a cluster answers for every node, each
     * field prefixed with the node; any node's restart or failover then changes the epoch of
     * every product, which costs a recovery of what was not lost, never a loss unnoticed.
     */
    static String identity(Properties server, Properties replication) {
        Map<String, String> identities = new TreeMap<>();
        for (Properties info : List.of(server, replication)) {
            info.forEach((key, value) -> {
                String name = String.valueOf(key);
                if (name.equals("run_id") || name.endsWith(".run_id") || name.equals("master_replid")
                        || name.endsWith(".master_replid")) {
                    identities.put(name, String.valueOf(value).trim());
                }
            });
        }
        if (identities.isEmpty()) {
            throw new IllegalStateException("INFO answered without run_id or master_replid: cannot tell Redis's "
                    + "epoch");
        }
        try {
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            sha1.update(identities.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha1.digest(), 0, 8);
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-1 is part of every Java runtime", ex);
        }
    }

    /** Notes the epoch (and the one this gateway knew before it) in Redis, and reads the history back. */
    private Mono<Epoch> noted(String id) {
        long now = clock.millis();
        Epoch before = known;
        Mono<Boolean> previous = before == null || before.id().equals(id) ? Mono.just(false)
                : redis.opsForHash().putIfAbsent(HISTORY_KEY, before.id(), Long.toString(before.since()));
        return previous.then(redis.opsForHash().putIfAbsent(HISTORY_KEY, id, Long.toString(now)))
                .then(redis.expire(HISTORY_KEY, HISTORY))
                .then(redis.opsForHash().entries(HISTORY_KEY).collectMap(e -> String.valueOf(e.getKey()),
                        e -> Long.parseLong(String.valueOf(e.getValue()))))
                .map(all -> epochOf(id, all, before));
    }

    private Epoch epochOf(String id, Map<String, Long> history, Epoch before) {
        long since = history.getOrDefault(id, clock.millis());
        String previous = null;
        long previousSince = Long.MIN_VALUE;
        for (Map.Entry<String, Long> entry : history.entrySet()) {
            if (!entry.getKey().equals(id) && entry.getValue() <= since && entry.getValue() > previousSince) {
                previous = entry.getKey();
                previousSince = entry.getValue();
            }
        }
        if (previous == null && before != null && !before.id().equals(id)) {
            previous = before.id();
        }
        return new Epoch(id, since, previous);
    }

    private void adopt(Epoch epoch) {
        Epoch before = known;
        known = epoch;
        if (before != null && !before.id().equals(epoch.id())) {
            log.warn("Redis's data changed under the gateway (epoch " + before.id() + " -> " + epoch.id()
                    + ": a restart, a failover or a restore). Places and sessions that shoppers' tokens prove come "
                    + "back for " + window.toSeconds() + " s; see docs/operations.md, \"When Redis forgets\"");
            listeners.forEach(listener -> {
                try {
                    listener.accept(epoch);
                }
                catch (RuntimeException ex) {
                    log.error("A listener of Redis's epoch failed", ex);
                }
            });
        }
    }
}
