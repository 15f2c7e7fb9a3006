package io.queuegate.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.room.Joiner;
import io.queuegate.store.LuaScript;
import io.queuegate.store.ProductRules;
import io.queuegate.store.QueueKeys;
import io.queuegate.store.script.JoinScript;
import io.queuegate.support.RedisProcess;

/**
 * What each script costs Redis's main thread, in µs of CPU per call ({@link RedisCpu}), with a
 * product holding {@value #WAITING} waiting users loaded through the real join script: a join of
 * a new user, a poll through the join script (a waiting user's token: the gateway's Redis path),
 * a status read, and a plain GET for scale. Calls are pipelined in batches, as many gateway
 * instances would send them, so the figure is Redis's own work, not a client's round trips.
 *
 * <p>Run by {@code bench/run scripts}; prints its table and appends it to the given file.
 */
public final class ScriptCosts {

    static final int WAITING = 200_000;
    private static final int CALLS = 100_000;
    private static final int BATCH = 500;
    /** Users per join.lua call in a join storm: the group commit's largest batch, and a storm's typical one. */
    private static final int GROUP = 64;
    private static final int STORM_GROUP = 32;
    /** Admitted shoppers whose passes one instance checks together in a call (the throughput bench's calls carried about 9). */
    private static final int ADMITTED = 8;
    private static final int SEEN_PER_CALL = 1_000;
    private static final String PRODUCT = "crowd";

    private final RedisCommands<String, String> sync;
    private final RedisAsyncCommands<String, String> async;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCpu cpu;
    private final String[] keys = QueueKeys.of(PRODUCT).forScripts().toArray(String[]::new);
    private final String join;
    private final String status;
    private final String view;
    private final String seen;
    private final String pass;
    /** The drop's opens-at: a minute before the measurement, so the sale is open. */
    private final long opened = System.currentTimeMillis() - 60_000;

    private ScriptCosts(RedisClient client) {
        this.sync = client.connect().sync();
        this.connection = client.connect();
        this.async = connection.async();
        this.cpu = new RedisCpu(sync);
        this.join = sync.scriptLoad(LuaScript.load("join.lua").source());
        this.status = sync.scriptLoad(LuaScript.load("status.lua").source());
        this.view = sync.scriptLoad(LuaScript.load("view.lua").source());
        this.seen = sync.scriptLoad(LuaScript.load("seen.lua").source());
        this.pass = sync.scriptLoad(LuaScript.load("pass.lua").source());
    }

    public static void main(String[] args) throws Exception {
        Path out = args.length > 0 ? Path.of(args[0]) : null;
        try (RedisProcess redis = RedisProcess.start(List.of("maxmemory 0"))) {
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", redis.port()));
            client.setDefaultTimeout(Duration.ofMinutes(2));
            try {
                String table = new ScriptCosts(client).run();
                String report = "# Redis CPU per script call\n\nMeasured by `bench/run scripts` on " + Instant.now()
                        + ", commit `" + Machine.git("rev-parse", "--short", "HEAD") + "`" + Machine.uncommitted()
                        + ".\n\nMachine: " + Machine.describe() + "; Redis "
                        + Machine.find(client.connect().sync().info("server"), "redis_version:(\\S+)", "?") + ". Load average at start "
                        + Machine.loadAverage() + ". Calls are pipelined, so a call's figure is Redis's own work "
                        + "(`INFO cpu` main thread, user + sys), not a round trip's.\n\n" + table;
                System.out.println(report);
                if (out != null) {
                    Files.writeString(out, report);
                }
            }
            finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    private String run() {
        long now = System.currentTimeMillis();
        pipelined(WAITING, i -> async.evalsha(join, ScriptOutputType.MULTI, keys, joinArgs(now, Rules.DEFAULT, user(i))));
        StringBuilder table = new StringBuilder(String.format(Locale.ROOT,
                "| call (%,d waiting) | Redis main-thread CPU µs per call | per user |%n|---|---|---|%n", WAITING));
        for (Rules rules : Rules.values()) {
            double joins = perCall(CALLS, i -> async.evalsha(join, ScriptOutputType.MULTI, keys,
                    joinArgs(System.currentTimeMillis(), rules, "new-" + rules + "-" + i)));
            table.append(row("join of a new user, alone (join.lua; " + rules.label + ")", joins, 1));
            for (int size : new int[] { STORM_GROUP, GROUP }) {
                double batched = perCall(CALLS / size, i -> async.evalsha(join, ScriptOutputType.MULTI, keys,
                        joinArgs(System.currentTimeMillis(), rules, group("grp" + size + "-" + rules + "-" + i, size))));
                table.append(row(size + " new users in one call (join.lua, group commit; " + rules.label + ")",
                        batched, size));
            }
        }
        double polls = perCall(CALLS, i -> async.evalsha(join, ScriptOutputType.MULTI, keys,
                joinArgs(System.currentTimeMillis(), Rules.DEFAULT, user(10 + (i * 7919) % (WAITING - 10)))));
        table.append(row("poll of a waiting user through Redis (join.lua; a token due to be signed again)", polls, 1));
        double reads = perCall(CALLS, i -> async.evalsha(status, ScriptOutputType.MULTI, keys, RawScripts.product(PRODUCT,
                user(10 + (i * 104729) % (WAITING - 10)), Long.toString(System.currentTimeMillis()), "")));
        table.append(row("status read of a waiting user (status.lua)", reads, 1));
        double views = perCall(CALLS / 10, i -> async.evalsha(view, ScriptOutputType.MULTI, keys,
                RawScripts.product(PRODUCT, "0", "0")));
        table.append(row("an instance's read of its view of the line (view.lua, twice a second per product)", views, 1));
        double marks = perCall(CALLS / SEEN_PER_CALL, i -> async.evalsha(seen, ScriptOutputType.MULTI, keys,
                seenArgs(i)));
        table.append(row(SEEN_PER_CALL + " seen marks in one call (seen.lua, every 250 ms per product)", marks,
                SEEN_PER_CALL));
        // The first ADMITTED users to join hold the places (max-active 10, sessions of 10 minutes): an
        // admitted shopper's pass checked once it ran out in an instance's active cache, by the call
        // that checked it until 0a47e84 (join.lua, as a user deciding nothing new) and by pass.lua.
        for (int size : new int[] { 1, ADMITTED }) {
            String[] admitted = IntStream.range(0, size).mapToObj(ScriptCosts::user).toArray(String[]::new);
            List<Object> ends = sync.evalsha(pass, ScriptOutputType.MULTI, keys, passArgs(admitted));
            if (((List<?>) ends.get(1)).stream().anyMatch(end -> ((Number) end).longValue() == 0)) {
                throw new IllegalStateException("the checked shoppers are not all admitted: " + ends);
            }
            double joined = perCall(CALLS / size, i -> async.evalsha(join, ScriptOutputType.MULTI, keys,
                    joinArgs(System.currentTimeMillis(), Rules.DEFAULT, admitted)));
            table.append(row(size + " admitted shopper" + (size == 1 ? "'s pass" : "s' passes")
                    + " checked in one call, the way before (join.lua)", joined, size));
            double passed = perCall(CALLS / size, i -> async.evalsha(pass, ScriptOutputType.MULTI, keys,
                    passArgs(admitted)));
            table.append(row(size + " admitted shopper" + (size == 1 ? "'s pass" : "s' passes")
                    + " checked in one call (pass.lua)", passed, size));
        }
        double gets = perCall(CALLS, i -> async.get(keys[2]));
        table.append(row("GET of one key, for scale", gets, 1));
        return table.toString();
    }

    private static String row(String call, double microsPerCall, int users) {
        return String.format(Locale.ROOT, "| %s | %.2f | %.2f |%n", call, microsPerCall, microsPerCall / users);
    }

    /** The rules a join passes: the runnable gateway's defaults, and with every drop feature in force. */
    enum Rules {
        DEFAULT("default rules: abandon-after 60 s"),
        DROP("a drop: opens-at passed, closes-at, max-admit-per-minute 600, abandon-after 60 s"),
        DROP_POW("the drop, each join paying a proof of work: its single-use mark");

        final String label;

        Rules(String label) {
            this.label = label;
        }
    }

    private String[] group(String prefix, int size) {
        String[] users = new String[size];
        for (int i = 0; i < size; i++) {
            users[i] = prefix + "-" + i;
        }
        return users;
    }

    private String[] seenArgs(int call) {
        String[] args = new String[1 + SEEN_PER_CALL];
        args[0] = Long.toString(System.currentTimeMillis());
        for (int i = 0; i < SEEN_PER_CALL; i++) {
            args[1 + i] = Long.toString(1 + ((long) call * SEEN_PER_CALL + i) % WAITING);
        }
        return RawScripts.product(PRODUCT, args);
    }

    interface Call {
        RedisFuture<?> send(int i);
    }

    /** Redis's main-thread CPU per call over {@code calls} calls, pipelined, after a warm-up of a tenth. */
    private double perCall(int calls, Call call) {
        pipelined(Math.max(10, calls / 10), call);
        double before = cpu.seconds();
        pipelined(calls, call);
        return (cpu.seconds() - before) * 1e6 / calls;
    }

    private void pipelined(int count, Call call) {
        connection.setAutoFlushCommands(false);
        try {
            List<RedisFuture<?>> futures = new ArrayList<>(BATCH);
            for (int i = 0; i < count; i++) {
                futures.add(call.send(i));
                if (futures.size() == BATCH) {
                    flush(futures);
                }
            }
            flush(futures);
        }
        finally {
            connection.setAutoFlushCommands(true);
        }
    }

    private void flush(List<RedisFuture<?>> futures) {
        connection.flushCommands();
        if (!LettuceFutures.awaitAll(2, TimeUnit.MINUTES, futures.toArray(new RedisFuture[0]))) {
            throw new IllegalStateException("a pipelined batch timed out");
        }
        for (RedisFuture<?> future : futures) {
            if (future.getError() != null) {
                throw new IllegalStateException("a pipelined call failed: " + future.getError());
            }
        }
        futures.clear();
    }

    /** join.lua's arguments as the runnable gateway passes them (none completing; a proof of work's mark under DROP_POW). */
    private String[] joinArgs(long now, Rules rules, String... users) {
        // No draw seed: the sale here opened a minute ago, and the gateway draws one only before opens-at.
        ProductRules productRules = rules != Rules.DEFAULT
                ? new ProductRules(10, Duration.ofMinutes(10), "pubsub", Instant.ofEpochMilli(opened),
                        Instant.ofEpochMilli(now + 3_600_000), 600, Duration.ofSeconds(60), Duration.ofMinutes(10))
                : new ProductRules(10, Duration.ofMinutes(10), "pubsub", null, null, 0, Duration.ofSeconds(60),
                        Duration.ofMinutes(10));
        List<Joiner> joiners = Arrays.stream(users).map(user -> rules == Rules.DROP_POW
                ? new Joiner(user, null, mark(user), Duration.ofSeconds(150))
                : new Joiner(user, null)).toList();
        return RawScripts.join(new JoinScript.Args(PRODUCT, now, productRules, Duration.ofMillis(7_800_000), null,
                joiners));
    }

    /** pass.lua's arguments: the time, then the users. */
    private static String[] passArgs(String[] users) {
        String[] args = new String[1 + users.length];
        args[0] = Long.toString(System.currentTimeMillis());
        System.arraycopy(users, 0, args, 1, users.length);
        return RawScripts.product(PRODUCT, args);
    }

    /** A mark as the gateway makes one: 32 hex characters of a solved challenge's hash. */
    private static String mark(String user) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(user.getBytes(StandardCharsets.UTF_8))).substring(0, 32);
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static String user(int i) {
        return String.format("u%015d", i);
    }

    static String stamp() {
        return Instant.now().toString();
    }
}
