package io.queuegate.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.events.QueueEventHub;
import io.queuegate.promotion.PromotionScheduler;
import io.queuegate.room.Joiner;
import io.queuegate.store.DueIndex;
import io.queuegate.store.LuaScript;
import io.queuegate.room.Placement;
import io.queuegate.store.ProductQueues;
import io.queuegate.store.ProductRegistry;
import io.queuegate.store.ProductRules;
import io.queuegate.store.QueueKeys;
import io.queuegate.store.QueueScripts;
import io.queuegate.store.RedisGuard;
import io.queuegate.store.ScriptReply;
import io.queuegate.store.DrawSeeds;
import io.queuegate.store.ScriptEpoch;
import io.queuegate.store.ScriptRunner;
import io.queuegate.store.SlotEventStream;
import io.queuegate.store.TimedProducts;
import io.queuegate.store.script.JoinScript;
import io.queuegate.support.RedisProcess;
import io.queuegate.support.TestClock;

import org.HdrHistogram.Histogram;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import reactor.core.publisher.Mono;

/**
 * QueueGate at scale, on one real Redis: memory per waiting user with a million waiting in one
 * product (loaded through the real join script), join and rank latency at a million waiting
 * against a thousand, and one safety-net promotion pass over ten thousand products.
 *
 * <p>Run by {@code bench/run scale}; writes {@code bench/results/scale.md}.
 */
public final class Scale {

    private static final int WAITING = 1_000_000;
    private static final int SMALL = 1_000;
    private static final int MAX_ACTIVE = 10;
    private static final long SESSION_TTL_MS = Duration.ofMinutes(30).toMillis();
    private static final long IDLE_TTL_MS = Duration.ofHours(1).toMillis();
    private static final String STRATEGY = "pubsub";
    private static final int BATCH = 1000;
    private static final int SAMPLES = 2000;
    private static final int ROUNDS = 5;
    private static final int SEED_MEMBERS = 100_000;
    private static final int PRODUCTS = 10_000;
    private static final int PER_PRODUCT = 100;
    private static final int CONCURRENCY = 8; // PromotionScheduler.CONCURRENCY
    private static final long PASS_SESSION_TTL_MS = 60_000;
    /** The gateway's defaults for abandon-after and arrival-ttl: join.lua's ARGV[7..11]. */
    private static final Duration DEFAULT_ABANDON_AFTER = Duration.ofSeconds(60);
    /** The seen bitmaps' span under the default abandon-after (a quarter of 60 s). */
    private static final long SEEN_SPAN_MS = 15_000;
    /** No abandon-after: in the safety-net section nobody polls, and every place must be kept. */
    private static final Duration KEEP_EVERY_PLACE = Duration.ZERO;

    private final RedisCommands<String, String> sync;
    private final RedisAsyncCommands<String, String> async;
    private final StatefulRedisConnection<String, String> pipelined;
    private final LuaScript joinScript = LuaScript.load("join.lua");
    private final LuaScript statusScript = LuaScript.load("status.lua");
    private final LuaScript promoteScript = LuaScript.load("promote.lua");
    private final LuaScript snapshotScript = LuaScript.load("snapshot.lua");
    private final Random random = new Random(11);
    private String joinSha;
    private String statusSha;
    private String promoteSha;
    private final StringBuilder md = new StringBuilder();

    private final int redisPort;

    private Scale(RedisClient client, int redisPort) {
        this.redisPort = redisPort;
        this.sync = client.connect().sync();
        this.pipelined = client.connect();
        this.async = pipelined.async();
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "bench/results/scale.md");
        try (RedisProcess redis = RedisProcess.start(List.of("maxmemory 0"))) {
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", redis.port()));
            client.setDefaultTimeout(Duration.ofMinutes(2));
            try {
                new Scale(client, redis.port()).run(out);
            }
            finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    private void run(Path out) {
        Instant started = Instant.now();
        header();
        memoryAndLatency();
        seedLayout();
        safetyNet();
        md.append("\nTotal run time: ").append(Duration.between(started, Instant.now()).toSeconds()).append(" s.\n");
        try {
            Files.createDirectories(out.toAbsolutePath().getParent());
            Files.writeString(out, md.toString());
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        System.out.println("wrote " + out);
    }

    private void header() {
        String version = info("server").getOrDefault("redis_version", "?");
        md.append("# Scale\n\n")
                .append("Written by `bench/run scale` (`java -cp \"$classpath\" io.queuegate.bench.Scale ")
                .append("bench/results/scale.md`) on ").append(Instant.now()).append(".\n\n")
                .append("Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" cores (`nproc`), ")
                .append(cpuModel()).append(", Java ").append(System.getProperty("java.version"))
                .append(", Redis ").append(version).append(" (jemalloc, `maxmemory 0`, no persistence), ")
                .append("one Redis child process on loopback; the bench client shares the cores with it. ")
                .append("Commit ").append(gitHead()).append(".\n\n")
                .append("Every queue operation goes through the real scripts (`QueueScripts`: line.lua and fill.lua ")
                .append("prepended), SCRIPT LOAD once, then EVALSHA, with the gateway's default rules (abandon-after 60 s, ")
                .append("so every waiter is tracked as seen; arrival-ttl 60 s). User ids are exactly 16 characters; max-active ")
                .append(MAX_ACTIVE).append(", strategy ").append(STRATEGY).append(".\n");
    }

    // ---- 1 and 2: memory per waiting user; join/rank latency at 1M vs 1k -----------------------

    private void memoryAndLatency() {
        sync.flushall();
        loadScripts();
        settle();
        long before = usedMemory();
        long start = System.nanoTime();
        long now = System.currentTimeMillis();
        joinPipelined("big", WAITING + MAX_ACTIVE, i -> user('u', i), now, SESSION_TTL_MS);
        double loadSeconds = (System.nanoTime() - start) / 1e9;
        settle();
        long after = usedMemory();
        QueueKeys big = QueueKeys.of("big");
        long waiting = waiting("big");
        long active = sync.zcard(big.active());
        Map<String, Long> usage = keyUsage("big");
        double perUser = (after - before) / (double) WAITING;
        System.out.printf("1M load: %.1f s, waiting=%d active=%d, %.1f B/user (used_memory), by key kind %s%n",
                loadSeconds, waiting, active, perUser, usage);
        if (waiting != WAITING || active != MAX_ACTIVE) {
            throw new IllegalStateException("expected " + WAITING + " waiting and " + MAX_ACTIVE + " active, got "
                    + waiting + " / " + active);
        }
        Map<String, String> memory = info("memory");

        // Latency: the 1,000-waiting product lives in the same Redis beside the 1M one, so only
        // the queue's size differs between the two cells.
        joinPipelined("small", SMALL + MAX_ACTIVE, i -> user('u', i), now, SESSION_TTL_MS);
        joinPipelined("warm", SMALL + MAX_ACTIVE, i -> user('u', i), now, SESSION_TTL_MS);
        // JIT and connection warm-up, figures dropped
        timedJoins("warm", 'w', SAMPLES);
        timedStatus("warm", SMALL + MAX_ACTIVE, SAMPLES);

        // ROUNDS rounds, the order of the two products alternating, so drift of the machine
        // favours neither side
        List<Cell> joinSmall = new ArrayList<>(), joinBig = new ArrayList<>();
        List<Cell> statusSmall = new ArrayList<>(), statusBig = new ArrayList<>();
        for (int r = 0; r < ROUNDS; r++) {
            char prefix = (char) ('A' + r);
            boolean smallFirst = r % 2 == 0;
            for (int k = 0; k < 2; k++) {
                if ((k == 0) == smallFirst) {
                    joinSmall.add(timedJoins("small", prefix, SAMPLES));
                }
                else {
                    joinBig.add(timedJoins("big", prefix, SAMPLES));
                }
            }
            for (int k = 0; k < 2; k++) {
                if ((k == 0) == smallFirst) {
                    statusSmall.add(timedStatus("small", SMALL + MAX_ACTIVE, SAMPLES));
                }
                else {
                    statusBig.add(timedStatus("big", WAITING + MAX_ACTIVE, SAMPLES));
                }
            }
        }

        md.append("\n## 1. Memory per waiting user\n\n")
                .append(String.format("%,d users joined one product through join.lua, pipelined (async, auto-flush off, ", WAITING + MAX_ACTIVE))
                .append("flush and await every ").append(BATCH).append("), in ").append(String.format("%.1f", loadSeconds))
                .append(" s; ").append(String.format("%,d", waiting)).append(" wait, ").append(active).append(" are active.\n")
                .append("`used_memory` before (after FLUSHALL and SCRIPT LOAD): ").append(String.format("%,d", before))
                .append(" B; after: ").append(String.format("%,d", after)).append(" B (used_memory_human ")
                .append(memory.get("used_memory_human")).append(", rss ").append(memory.get("used_memory_rss_human"))
                .append(").\n\n")
                .append("| measure | bytes per waiting user | target |\n|---|---|---|\n")
                .append(String.format("| QueueGate (`used_memory` after − before) ÷ %,d | **%.1f** | ≤ 120: %s |%n", WAITING, perUser,
                        perUser <= 120 ? "met" : "**missed**"))
                .append(usageRows(usage));
        seedRowAnchor = md.length();

        md.append("\n## 2. Join and rank latency: 1,000,000 waiting vs 1,000 waiting\n\n")
                .append("Both products in the same Redis at once (1,000 waiting beside 1,000,000). ").append(ROUNDS)
                .append(" rounds; in each, ").append(SAMPLES).append(" calls per product and operation, one at a time on one ")
                .append("sync connection, the two products' order alternating between rounds: joins of new users (EVALSHA ")
                .append("join.lua; each round's new users are new) and status of random existing waiters (EVALSHA status.lua, ")
                .append("the rank read), each read its holder's first in its seen span, as when every waiter polls about once ")
                .append("a span (a user is not read twice in a span; the 1,000 line moves to the next span when all were read). Client time is the full loopback round trip: each round's p50 and p99, and their ")
                .append("median over the rounds. Server time is `INFO commandstats` evalsha ")
                .append("`usec_per_call` over each round's cell (CONFIG RESETSTAT before each): median of the rounds, and ")
                .append("each round's figure. Every status answer's rank is checked against the user's known place. ")
                .append("A warm-up product took ").append(SAMPLES).append(" joins and ").append(SAMPLES)
                .append(" status calls first (dropped). Queue sizes grow by the joins: the 1,000 product ends at ")
                .append(String.format("%,d", SMALL + ROUNDS * SAMPLES)).append(" waiting, the 1M one at ")
                .append(String.format("%,d", WAITING + ROUNDS * SAMPLES)).append(".\n\n")
                .append("| op | waiting | client p50 µs | client p99 µs | client p99 µs per round | server µs/call | server µs/call per round |\n")
                .append("|---|---|---|---|---|---|---|\n");
        cellRow("join", "1,000", joinSmall);
        cellRow("join", "1,000,000", joinBig);
        cellRow("status (rank)", "1,000", statusSmall);
        cellRow("status (rank)", "1,000,000", statusBig);
        md.append("\nRatios, 1,000,000 ÷ 1,000:\n\n")
                .append("| op | client p50 ratio | client p99 ratio | server µs/call ratio (medians) | target: within 10% |\n")
                .append("|---|---|---|---|---|\n");
        ratioRow("join", joinSmall, joinBig);
        ratioRow("status (rank)", statusSmall, statusBig);
        md.append("\nA rank is worked out, not walked (line.lua): the user's ticket from its bucket (a listpack ")
                .append("HASH of about 15 users at 1M), the position from the ticket, minus the places given up between the head ")
                .append("and them (`ZCOUNT` on a set that holds only leaves not yet passed, empty here); the read also stamps the ")
                .append("seen bitmap and, as the holder's first in the span, renews the two entries' expiry. Nothing in it grows ")
                .append("with the line. What is left of a difference is where the keys are: in ~60 MB at a million, in the CPU's ")
                .append("caches at a thousand. A join touches the tail of the line, which stays in cache. Client p99s move ")
                .append("between rounds with the 2-core machine (per-round column).\n");
    }

    /** The product's keys by kind (the part of the name after the tag, digits dropped), and their MEMORY USAGE. */
    private Map<String, Long> keyUsage(String product) {
        Map<String, Long> usage = new java.util.TreeMap<>();
        io.lettuce.core.ScanCursor cursor = io.lettuce.core.ScanCursor.INITIAL;
        String prefix = "qg:{" + product + "}:";
        do {
            io.lettuce.core.KeyScanCursor<String> page = sync.scan(cursor,
                    io.lettuce.core.ScanArgs.Builder.matches(prefix + "*").limit(10_000));
            for (String key : page.getKeys()) {
                String kind = key.substring(prefix.length()).replaceAll("[0-9]+", "<n>");
                Long bytes = sync.memoryUsage(key);
                usage.merge(kind, bytes == null ? 0 : bytes, Long::sum);
                usage.merge(kind + " (keys)", 1L, Long::sum);
            }
            cursor = page;
        } while (!cursor.isFinished());
        return usage;
    }

    private static String usageRows(Map<String, Long> usage) {
        StringBuilder rows = new StringBuilder();
        usage.forEach((kind, bytes) -> {
            if (!kind.endsWith(" (keys)")) {
                rows.append(String.format("| `MEMORY USAGE` of the %,d `%s` keys ÷ %,d | %.1f | |%n",
                        usage.get(kind + " (keys)"), kind, WAITING, bytes / (double) WAITING));
            }
        });
        return rows.toString();
    }

    /** The median over the rounds of each round's percentile (µs): one noisy round moves it little. */
    private static double medianOfRounds(List<Cell> cells, double percentile) {
        return Rounds.median(cells.stream().mapToDouble(c -> c.histogram.getValueAtPercentile(percentile)).toArray());
    }

    private static double medianServer(List<Cell> cells) {
        return Rounds.median(cells.stream().mapToDouble(Cell::serverUsec).toArray());
    }

    private void cellRow(String op, String waiting, List<Cell> cells) {
        md.append(String.format("| %s | %s | %.0f | %.0f | %s | %.1f | %s |%n", op, waiting, medianOfRounds(cells, 50),
                medianOfRounds(cells, 99), cells.stream().map(c -> Long.toString(c.histogram.getValueAtPercentile(99)))
                        .collect(java.util.stream.Collectors.joining(", ")),
                medianServer(cells), cells.stream()
                        .map(c -> String.format("%.1f", c.serverUsec)).collect(java.util.stream.Collectors.joining(", "))));
    }

    private void ratioRow(String op, List<Cell> smallCells, List<Cell> bigCells) {
        double p50 = medianOfRounds(bigCells, 50) / medianOfRounds(smallCells, 50);
        double p99 = medianOfRounds(bigCells, 99) / medianOfRounds(smallCells, 99);
        double server = medianServer(bigCells) / medianServer(smallCells);
        String verdict = "client p50 " + (p50 <= 1.10 ? "met" : "**missed**") + ", client p99 " + (p99 <= 1.10 ? "met" : "**missed**")
                + ", server " + (server <= 1.10 ? "met" : "**missed**");
        md.append(String.format("| %s | %.2f | %.2f | %.2f | %s |%n", op, p50, p99, server, verdict));
        System.out.printf("%s ratios: p50 %.2f p99 %.2f server %.2f%n", op, p50, p99, server);
    }

    private int seedRowAnchor;

    private record Cell(String op, String product, Histogram histogram, double serverUsec) {
    }

    private Cell timedJoins(String product, char prefix, int count) {
        String[] keys = joinKeys(product);
        Histogram histogram = new Histogram(3);
        quietClient();
        sync.configResetstat();
        for (int i = 0; i < count; i++) {
            String uid = user(prefix, i);
            long start = System.nanoTime();
            List<Object> result = sync.evalsha(joinSha, ScriptOutputType.MULTI, keys, joinArguments(product, uid,
                    System.currentTimeMillis(), SESSION_TTL_MS));
            histogram.recordValue((System.nanoTime() - start) / 1_000);
            ScriptReply reply = ScriptReply.of("join.lua", result);
            if (reply.code("state", Placement.State.class) != Placement.State.WAITING || !reply.flag("enqueued")) {
                throw new IllegalStateException("join of a new user did not enqueue: " + result);
            }
        }
        double server = evalshaUsecPerCall();
        System.out.printf("join %s: p50=%d p99=%d us, server %.2f us/call%n", product, histogram.getValueAtPercentile(50),
                histogram.getValueAtPercentile(99), server);
        return new Cell("join", product, histogram, server);
    }

    /** Per product: the seen span its status reads are in, and the waiters already read in it. */
    private final Map<String, long[]> statusSpan = new java.util.HashMap<>();
    private final Map<String, java.util.Set<Integer>> readInSpan = new java.util.HashMap<>();

    private Cell timedStatus(String product, int loaded, int count) {
        String[] statusKeys = joinKeys(product);
        Histogram histogram = new Histogram(3);
        quietClient();
        sync.configResetstat();
        int waiters = loaded - MAX_ACTIVE;
        long[] span = statusSpan.computeIfAbsent(product, p -> new long[] { System.currentTimeMillis() });
        java.util.Set<Integer> read = readInSpan.computeIfAbsent(product, p -> new java.util.HashSet<>());
        for (int i = 0; i < count; i++) {
            // A random waiter not yet read in this seen span: as in a real line, where every waiter
            // polls about once a span, each read is its holder's first in the span, at both sizes
            // (a 1,000-user line read 2,000 times a round would otherwise be answered mostly from
            // stamps already made, and do less work than the million's). Users MAX_ACTIVE.. wait.
            if (read.size() == waiters) {
                span[0] += SEEN_SPAN_MS;
                read.clear();
            }
            int index;
            do {
                index = MAX_ACTIVE + random.nextInt(waiters);
            } while (!read.add(index));
            String uid = user('u', index);
            long start = System.nanoTime();
            List<Object> result = sync.evalsha(statusSha, ScriptOutputType.MULTI, statusKeys,
                    RawScripts.product(product, uid, Long.toString(span[0]), ""));
            histogram.recordValue((System.nanoTime() - start) / 1_000);
            // u0..u(MAX_ACTIVE-1) were admitted; everyone after them waits in join order.
            ScriptReply reply = ScriptReply.of("status.lua", result);
            if (reply.code("state", Placement.State.class) != Placement.State.WAITING
                    || reply.number("rank") != index - MAX_ACTIVE + 1) {
                throw new IllegalStateException("status of waiter " + uid + ": " + result);
            }
        }
        double server = evalshaUsecPerCall();
        System.out.printf("status %s: p50=%d p99=%d us, server %.2f us/call%n", product, histogram.getValueAtPercentile(50),
                histogram.getValueAtPercentile(99), server);
        return new Cell("status (rank)", product, histogram, server);
    }

    // ---- 1b: the first published layout (a JWT per member) ---------------------------------------------------------

    private void seedLayout() {
        sync.flushall();
        settle();
        long before = usedMemory();
        String token = jwtLike();
        long ms = System.currentTimeMillis();
        List<RedisFuture<?>> futures = new ArrayList<>(BATCH);
        pipelined.setAutoFlushCommands(false);
        try {
            for (int i = 0; i < SEED_MEMBERS; i++) {
                // one token per member, as the article issues them: vary its signature part
                String member = "user:" + user('u', i) + ":token:" + token.substring(0, token.length() - 16) + user('s', i);
                futures.add(async.zadd("seed:queue", (double) (ms + i), member));
                if (futures.size() == BATCH) {
                    flushAndAwait(futures);
                }
            }
            flushAndAwait(futures);
        }
        finally {
            pipelined.setAutoFlushCommands(true);
        }
        settle();
        long after = usedMemory();
        double perMember = (after - before) / (double) SEED_MEMBERS;
        int memberLength = ("user:" + user('u', 0) + ":token:" + token).length();
        System.out.printf("seed layout: %.1f B/member (member %d chars)%n", perMember, memberLength);
        String row = String.format("| Seed article layout (member `user:{uid}:token:{jwt}`, %d chars, %d-char JWT-like token; "
                + "score = ms; plain ZADD), %,d members, (after − before) ÷ members | %.1f | (TOOLCHAIN: ~349) |%n",
                memberLength, token.length(), SEED_MEMBERS, perMember);
        String note = String.format("%nWhere QueueGate's bytes go: each waiter is one entry in a page of the line "
                + "(`line:<n>`, a HASH of 128 tickets: ticket as a listpack integer, 4–5 B, and the 16-character id, 18 B) and "
                + "one in a bucket (`tickets:<n>`, 65,536 HASHes of about 15 users: the id and the ticket), both stored by Redis "
                + "as listpacks, with no per-entry pointers; plus the keys themselves (a dict entry, a name, an expiry each) "
                + "and the rounding of their allocations, and the seen bitmaps (one bit per ticket in each of up to five "
                + "15-second slots). A sorted set "
                + "of the same ids costs 126 B a member here (32 B id, 32 B dict entry, ~8 B buckets, ~53 B skiplist node); "
                + "the line's layout avoids all of it but the ids.%n");
        md.insert(seedRowAnchor, row + note);
    }

    /** A JWT-shaped string of about 215 characters: header.payload.signature in base64url. */
    private static String jwtLike() {
        String header = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9";
        String payload = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(
                "{\"sub\":\"u000000000000000\",\"pid\":\"product-42\",\"iat\":1764633600,\"exp\":1764637200,\"jti\":\"a1b2c3d4e5f6\"}"
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        String signature = "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
        return header + "." + payload + "." + signature;
    }

    // ---- 3: one safety-net pass over 10,000 products -------------------------------------------

    private void safetyNet() {
        sync.flushall();
        loadScripts();
        long t0 = System.currentTimeMillis();
        long start = System.nanoTime();
        List<RedisFuture<?>> futures = new ArrayList<>(BATCH);
        pipelined.setAutoFlushCommands(false);
        try {
            for (int p = 0; p < PRODUCTS; p++) {
                String product = product(p);
                futures.add(async.sadd(QueueKeys.PRODUCTS, product));
                // What the gateway's batched marks do for a product that got new waiters.
                futures.add(async.zadd(QueueKeys.DUE, (double) t0, product));
                String[] keys = joinKeys(product);
                for (int i = 0; i < PER_PRODUCT + MAX_ACTIVE; i++) {
                    futures.add(async.evalsha(joinSha, ScriptOutputType.MULTI, keys,
                            joinArguments(product, user('u', i), t0, PASS_SESSION_TTL_MS, KEEP_EVERY_PLACE)));
                    if (futures.size() >= BATCH) {
                        flushAndAwait(futures);
                    }
                }
            }
            flushAndAwait(futures);
        }
        finally {
            pipelined.setAutoFlushCommands(true);
        }
        double loadSeconds = (System.nanoTime() - start) / 1e9;
        long totalWaiting = 0;
        for (int p = 0; p < PRODUCTS; p += PRODUCTS / 10) {
            totalWaiting += waiting(product(p));
        }
        System.out.printf("10k products loaded in %.1f s (sampled waiting per product %d)%n", loadSeconds, totalWaiting / 10);

        // The gateway's own code does the passes: a QueueStore and PromotionScheduler on Spring
        // Data Redis (reactive Lettuce), with a clock the bench sets, never started on a timer.
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", redisPort));
        factory.afterPropertiesSet();
        factory.start();
        try {
            TestClock clock = new TestClock(Instant.EPOCH);
            ReactiveStringRedisTemplate template = new ReactiveStringRedisTemplate(factory);
            RedisGuard guard = new RedisGuard(new io.queuegate.store.Resilience4jBreaker(CircuitBreaker.ofDefaults("bench")), Duration.ofMinutes(1));
            QueueScripts scripts = new QueueScripts(new ScriptRunner(template, guard,
                    ScriptEpoch.fixed(RawScripts.EPOCH, false)));
            QueueEventHub events = new QueueEventHub();
            DueIndex dueIndex = new DueIndex(template, guard, scripts, clock);
            ProductRegistry registry = new ProductRegistry(template, guard, scripts, clock);
            TimedProducts timed = new TimedProducts();
            ProductQueues store = new ProductQueues(template, guard, scripts, clock, events, dueIndex, registry, timed,
                    new SlotEventStream(template, guard, scripts, 10_000), Duration.ofHours(2),
                    (productId, rules) -> reactor.core.publisher.Mono.error(new IllegalStateException(
                            "the bench's Redis never forgets")),
                    new DrawSeeds("a bench's token secret, at least 32 bytes long", List.of()), java.util.Set.of());
            PromotionScheduler scheduler = new PromotionScheduler(store, dueIndex, registry, timed, events,
                    Duration.ofHours(1), Duration.ofHours(1));
            // Pass 1: every product's sessions have expired (t0 + 2 session ttls): each has 10 places due.
            Pass due = pass("1: every product due", clock, t0 + 2 * PASS_SESSION_TTL_MS, () -> scheduler.promoteDue(""));
            // Pass 2: right after, every product is full until its new sessions end: nothing due.
            Pass idle = pass("2: nothing due (all full)", clock, t0 + 2 * PASS_SESSION_TTL_MS + 1,
                    () -> scheduler.promoteDue(""));
            // Pass 3: the backstop sweep every tenth pass runs, over the whole registry.
            Pass sweep = pass("3: backstop sweep (every 10th pass)", clock, t0 + 2 * PASS_SESSION_TTL_MS + 2,
                    () -> scheduler.promoteAll(""));
            long waitingAfter = waiting(product(0));
            long dueAfter = sync.zcard(QueueKeys.DUE);

            md.append("\n## 3. One safety-net pass over ").append(String.format("%,d", PRODUCTS)).append(" products\n\n")
                    .append(String.format("%,d products with %d waiting each (%d joined each through join.lua, pipelined; max-active %d), ",
                            PRODUCTS, PER_PRODUCT, PER_PRODUCT + MAX_ACTIVE, MAX_ACTIVE))
                    .append("loaded in ").append(String.format("%.1f", loadSeconds)).append(" s with abandon-after 0 (nobody polls in ")
                    .append("this section, and every place must be kept); each product SADDed to `qg:products` ")
                    .append("and marked due in `qg:due` at the load's time, as the gateway's batched marks do for new waiters. ")
                    .append("The passes are the gateway's own `PromotionScheduler.promoteDue(\"\")` (the safety net) and ")
                    .append("`promoteAll(\"\")` (the sweep every tenth pass), on a `QueueStore` over Spring Data Redis, with a clock ")
                    .append("the bench sets. Pass 1 runs two session TTLs after the load, so all 10 sessions of every product have ")
                    .append("expired and every product promotes 10 (the worst case: every product due); pass 2 runs right after, ")
                    .append("when every product is full until its new sessions end. Script calls are counted by `INFO commandstats` ")
                    .append("(evalsha + eval); the write-backs to the due index (`reschedule.lua`, one per 500 products) are among them.\n\n")
                    .append("| pass | duration ms | products with due work | script calls | of which per product | users moved | target |\n")
                    .append("|---|---|---|---|---|---|---|\n");
            for (Pass pass : List.of(due, idle, sweep)) {
                long dueWork = pass == due ? PRODUCTS : pass == idle ? 0 : PRODUCTS;
                // The sweep writes back with one ZADD script per 500 as well; the due pass with reschedule.lua.
                long perProduct = pass.scriptCalls - (dueWork + 499) / 500;
                boolean met = pass.millis < 30_000 && (pass == sweep || perProduct == dueWork);
                md.append(String.format("| %s | %.0f | %,d | %,d | %,d | %,d | %s |%n", pass.name, pass.millis,
                        pass == sweep ? 0 : dueWork, pass.scriptCalls, perProduct, pass.moved,
                        pass == sweep ? "(not the safety-net pass: the backstop walks all)"
                                : "within 30 s, one call per product with due work: " + (met ? "met" : "**missed**")));
            }
            md.append(String.format("%nAfter the passes product 0 has %d waiting (100 − 10 promoted); %,d products are in the "
                    + "due index, each due when its earliest session ends.%n", waitingAfter, dueAfter));
        }
        finally {
            factory.destroy();
        }
    }

    private record Pass(String name, double millis, long scriptCalls, long moved) {
    }

    private Pass pass(String name, TestClock clock, long now, java.util.function.Supplier<Mono<Long>> run) {
        clock.set(Instant.ofEpochMilli(now));
        sync.configResetstat();
        long start = System.nanoTime();
        Long moved = run.get().block(Duration.ofMinutes(5));
        double millis = (System.nanoTime() - start) / 1e6;
        Map<String, String> stats = info("commandstats");
        long calls = field(stats.get("cmdstat_evalsha"), "calls") + field(stats.get("cmdstat_eval"), "calls");
        System.out.printf("pass %s: %.0f ms, script calls %d, moved %d%n", name, millis, calls, moved);
        return new Pass(name, millis, calls, moved == null ? 0 : moved);
    }

    // ---- helpers --------------------------------------------------------------------------------

    private interface Users {
        String id(int i);
    }

    private void joinPipelined(String product, int count, Users users, long now, long ttl) {
        String[] keys = joinKeys(product);
        List<RedisFuture<?>> futures = new ArrayList<>(BATCH);
        pipelined.setAutoFlushCommands(false);
        try {
            for (int i = 0; i < count; i++) {
                futures.add(async.evalsha(joinSha, ScriptOutputType.MULTI, keys, joinArguments(product, users.id(i), now, ttl)));
                if (futures.size() == BATCH) {
                    flushAndAwait(futures);
                }
            }
            flushAndAwait(futures);
        }
        finally {
            pipelined.setAutoFlushCommands(true);
        }
    }

    /** join.lua's ARGV under the gateway's default rules (the bench calls it raw, pipelined, for speed). */
    private static String[] joinArguments(String product, String uid, long now, long ttl) {
        return joinArguments(product, uid, now, ttl, DEFAULT_ABANDON_AFTER);
    }

    /** join.lua's ARGV, as the gateway's typed adapter orders it, for one user with this abandon-after. */
    private static String[] joinArguments(String product, String uid, long now, long ttl, Duration abandonAfter) {
        ProductRules rules = new ProductRules(MAX_ACTIVE, Duration.ofMillis(ttl), STRATEGY, null, null, 0, abandonAfter,
                Duration.ofMillis(Math.min(ttl, 60_000)));
        return RawScripts.join(new JoinScript.Args(product, now, rules, Duration.ofMillis(IDLE_TTL_MS), null,
                List.of(new Joiner(uid, null))));
    }

    /** How many wait in the product's line, as the queues endpoint reads it (snapshot.lua). */
    private long waiting(String product) {
        List<Object> snapshot = sync.eval(snapshotScript.source(), ScriptOutputType.MULTI, joinKeys(product),
                RawScripts.product(product, Long.toString(System.currentTimeMillis())));
        return ScriptReply.of("snapshot.lua", snapshot).number("waiting");
    }

    private void flushAndAwait(List<RedisFuture<?>> futures) {
        if (futures.isEmpty()) {
            return;
        }
        pipelined.flushCommands();
        if (!LettuceFutures.awaitAll(2, TimeUnit.MINUTES, futures.toArray(new RedisFuture[0]))) {
            throw new IllegalStateException("pipelined batch timed out");
        }
        for (RedisFuture<?> future : futures) {
            if (future.getError() != null) {
                throw new IllegalStateException("pipelined command failed: " + future.getError());
            }
        }
        futures.clear();
    }

    private void loadScripts() {
        joinSha = sync.scriptLoad(joinScript.source());
        statusSha = sync.scriptLoad(statusScript.source());
        promoteSha = sync.scriptLoad(promoteScript.source());
        // Loaded ahead, so the passes' first calls are not NOSCRIPT round trips.
        sync.scriptLoad(LuaScript.load("due.lua").source());
        sync.scriptLoad(LuaScript.load("reschedule.lua").source());
        if (!joinSha.equals(joinScript.sha1()) || !promoteSha.equals(promoteScript.sha1())) {
            throw new IllegalStateException("SHA1 mismatch between Redis and QueueScripts");
        }
    }

    private static String[] joinKeys(String product) {
        return QueueKeys.of(product).forScripts().toArray(String[]::new);
    }

    /** Exactly 16 characters. */
    private static String user(char prefix, int i) {
        return prefix + String.format("%015d", i);
    }

    private static String product(int p) {
        return String.format("p%05d", p);
    }

    /**
     * Collects the bench's own garbage before a timed cell (loading a million joins leaves plenty),
     * so a collection inside the cell does not show as Redis latency.
     */
    private static void quietClient() {
        System.gc();
        try {
            Thread.sleep(200);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** Lets Redis finish incremental rehashing and frees the last replies before reading memory. */
    private void settle() {
        try {
            Thread.sleep(1500);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private long usedMemory() {
        return Long.parseLong(info("memory").get("used_memory"));
    }

    private double evalshaUsecPerCall() {
        String line = info("commandstats").get("cmdstat_evalsha");
        return line == null ? 0 : Double.parseDouble(fieldText(line, "usec_per_call"));
    }

    private Map<String, String> info(String section) {
        Map<String, String> fields = new java.util.HashMap<>();
        for (String line : sync.info(section).split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    private static long field(String line, String name) {
        return line == null ? 0 : Long.parseLong(fieldText(line, name));
    }

    private static String fieldText(String line, String name) {
        for (String part : line.split(",")) {
            if (part.startsWith(name + "=")) {
                return part.substring(name.length() + 1);
            }
        }
        throw new IllegalStateException(name + " not in " + line);
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("unknown CPU");
        }
        catch (IOException ex) {
            return "unknown CPU";
        }
    }

    private static String gitHead() {
        try {
            Process git = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").redirectErrorStream(true).start();
            String out = new String(git.getInputStream().readAllBytes()).trim();
            git.waitFor(10, TimeUnit.SECONDS);
            String dirty = new String(new ProcessBuilder("git", "status", "--porcelain", "--", "gateway", "lua")
                    .start().getInputStream().readAllBytes()).trim();
            return "`" + out + "`" + (dirty.isEmpty() ? "" : " (gateway/lua with uncommitted changes)");
        }
        catch (IOException | InterruptedException ex) {
            return "unknown";
        }
    }
}
