package io.queuegate.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.sun.management.OperatingSystemMXBean;
import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.admission.RetryAfter;
import io.queuegate.app.QueueGateApplication;
import io.queuegate.room.Joiner;
import io.queuegate.store.ProductRules;
import io.queuegate.store.QueueScripts;
import io.queuegate.store.script.JoinScript;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;
import io.queuegate.token.WaitTokenCodec;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import reactor.core.publisher.Flux;
import reactor.netty.DisposableServer;
import reactor.netty.resources.LoopResources;

/**
 * What a waiting crowd costs Redis: one product with a million waiting (loaded through the real
 * join script, in the gateway's own batches), a gateway in front of it, and Redis's main-thread
 * CPU ({@link RedisCpu}) measured while the crowd polls (wrk, tokens carrying tickets), while
 * polls go to Redis (tokens of the previous release, the path a token due to be signed again
 * takes), while thousands of waiting pages hold their event streams (another JVM), and while a
 * join storm comes on top. From the per-poll and per-stream costs it works out how many waiting
 * shoppers one Redis core holds at half its time, at the shipped Retry-After policy.
 *
 * <p>Run by {@code bench/run crowd}; writes {@code bench/results/crowd.md}.
 */
public final class Crowd {

    static final String PRODUCT = "crowd";
    private static final int MAX_ACTIVE = 100;
    /**
     * Longer than the bench, and the whole of it to arrive: the admitted stay admitted, so no place
     * frees and nothing but the crowd's own traffic reaches Redis.
     */
    private static final Duration SESSION = Duration.ofMinutes(30);
    private static final Duration ABANDON_AFTER = Duration.ofSeconds(60);
    private static final int GROUP = 64;
    private static final int POLLERS = 100_000;
    private static final int OLD_TOKENS = 20_000;
    private static final Duration STREAM_WINDOW = Duration.ofSeconds(60);
    /** A waiting token's lifetime by default: it is signed again, through Redis, after half of it. */
    private static final Duration TOKEN_TTL = Duration.ofHours(2);

    private final RedisCommands<String, String> redis;
    private final RedisCpu cpu;
    private final Path work;
    private final int connections;

    private Crowd(RedisCommands<String, String> redis, Path work, int connections) {
        this.redis = redis;
        this.cpu = new RedisCpu(redis);
        this.work = work;
        this.connections = connections;
    }

    /**
     * One measured stretch: what Redis did (its CPU less what it spends idle, its own timers), and
     * what wrk saw if it ran.
     */
    record Stretch(double redisCpuSeconds, long scriptCalls, long commands, double seconds, Throughput.Run wrk,
            Map<String, long[]> byCommand) {

        double microsPer(long count) {
            return redisCpuSeconds * 1e6 / count;
        }

        /** Where Redis's time went, by command, as {@code INFO commandstats} times it (calls, µs). */
        String breakdown() {
            return byCommand.entrySet().stream()
                    .filter(entry -> entry.getValue()[1] > 0)
                    .sorted((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]))
                    .limit(6)
                    .map(entry -> String.format(Locale.ROOT, "%s %,d calls %,d µs", entry.getKey(), entry.getValue()[0],
                            entry.getValue()[1]))
                    .reduce((a, b) -> a + "; " + b).orElse("none");
        }
    }

    /** Redis's own CPU a second with nothing asked of it (its timers, expiry sampling). */
    private double idlePerSecond;

    public static void main(String[] args) throws Exception {
        int waiting = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int streams = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        Path out = Path.of(args.length > 3 ? args[3] : "bench/results/crowd.md");
        String command = args.length > 4 ? args[4] : "bench/run crowd";
        Path work = Path.of("bench/target/crowd");
        Files.createDirectories(work);
        Files.createDirectories(out.getParent());
        String loadAtStart = Machine.loadAverage();

        try (RedisProcess redisProcess = RedisProcess.start(List.of("maxmemory 0"))) {
            LoopResources backendLoops = LoopResources.create("backend", 1, true);
            DisposableServer backend = Throughput.startBackend(backendLoops);
            ConfigurableApplicationContext gateway = startGateway(redisProcess,
                    "http://127.0.0.1:" + backend.port());
            Process pages = null;
            try {
                String base = "http://127.0.0.1:" + ((WebServerApplicationContext) gateway).getWebServer().getPort();
                Crowd bench = new Crowd(redisProcess.commands(), work, 64);
                StringBuilder md = new StringBuilder();

                long loadStart = System.nanoTime();
                long[] tickets = bench.load(gateway.getBean(QueueScripts.class), waiting);
                double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
                long memory = bench.usedMemory();
                WaitTokenCodec codec = gateway.getBean(WaitTokenCodec.class);
                Path pollers = bench.tokens("pollers", codec, tickets, POLLERS, true, 1);
                Path old = bench.tokens("previous-release", codec, tickets, OLD_TOKENS, false, 2);
                Path pageTokens = bench.tokens("pages", codec, tickets, streams, true, 3);

                System.out.println("Redis idle");
                bench.idlePerSecond = bench.measure(() -> {
                    Thread.sleep(10_000);
                    return null;
                }).redisCpuSeconds() / 10.0;
                // Every token verified once (as a crowd's would be after their first poll), the JIT warm.
                System.out.println("warm-up");
                bench.wrk(base, "tokens.lua", pollers.toString(), 2 * seconds);
                bench.wrk(base, "tokens.lua", old.toString(), seconds);
                System.out.println("polls answered from the gateway's view");
                Stretch local = bench.measure(() -> bench.wrk(base, "tokens.lua", pollers.toString(), seconds));
                System.out.println("polls answered by Redis");
                Stretch viaRedis = bench.measure(() -> bench.wrk(base, "tokens.lua", old.toString(), seconds));

                System.out.println("opening " + streams + " event streams");
                long heapBefore = heapAfterGc();
                pages = startPages(base, pageTokens);
                long heapWith = heapAfterGc();
                OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
                long gatewayCpuBefore = os.getProcessCpuTime();
                Stretch held = bench.measure(() -> {
                    Thread.sleep(STREAM_WINDOW.toMillis());
                    return null;
                });
                double gatewayCpuShare = (os.getProcessCpuTime() - gatewayCpuBefore) / 1e9 / held.seconds();
                System.out.println("join storm on top");
                Stretch storm = bench.measure(() -> bench.wrk(base, "join.lua", "storm", seconds));

                md.append(report(waiting, streams, seconds, loadSeconds, memory, local, viaRedis, held, storm,
                        heapWith - heapBefore, gatewayCpuShare, loadAtStart, command, redisProcess,
                        bench.idlePerSecond));
                Files.writeString(out, md);
                System.out.println(md);
            }
            finally {
                if (pages != null) {
                    pages.destroyForcibly();
                }
                gateway.close();
                backend.disposeNow();
                backendLoops.disposeLater().block();
            }
        }
    }

    /** The runnable gateway with the crowd's product, its limits opened wide for one load generator. */
    private static ConfigurableApplicationContext startGateway(RedisProcess redis, String backendUrl) {
        Map<String, Object> properties = GatewayInstance.defaults(redis, backendUrl, Map.of(
                "max-active", Integer.toString(MAX_ACTIVE),
                "session-ttl", SESSION.toSeconds() + "s",
                "abandon-after", ABANDON_AFTER.toSeconds() + "s",
                "arrival-ttl", SESSION.toSeconds() + "s"));
        properties.put("management.server.port", "0");
        properties.put("queuegate.joins.max-per-caller", "100000000");
        properties.put("queuegate.joins.max-per-address", "100000000");
        properties.put("queuegate.events.max-per-address", "1000000");
        String[] args = properties.entrySet().stream()
                .map(entry -> "--" + entry.getKey() + "=" + entry.getValue())
                .toArray(String[]::new);
        return new SpringApplicationBuilder(QueueGateApplication.class).run(args);
    }

    /**
     * Joins {@code count} users through the gateway's own join script adapter, {@value #GROUP} a
     * call as its group commit sends them in a storm; returns each user's ticket.
     */
    private long[] load(QueueScripts scripts, int count) {
        ProductRules rules = new ProductRules(MAX_ACTIVE, SESSION, "pubsub", null, null, 0, ABANDON_AFTER, SESSION);
        long[] tickets = new long[count];
        int calls = (count + GROUP - 1) / GROUP;
        Flux.range(0, calls).flatMap(call -> {
            List<Joiner> joiners = new ArrayList<>(GROUP);
            for (int i = call * GROUP; i < Math.min(count, (call + 1) * GROUP); i++) {
                joiners.add(new Joiner(user(i), null));
            }
            return scripts.join().run(new JoinScript.Args(PRODUCT, System.currentTimeMillis(), rules,
                            TOKEN_TTL.plus(SESSION), null, joiners))
                    .doOnNext(result -> {
                        for (int j = 0; j < result.joined().size(); j++) {
                            Long ticket = result.joined().get(j).ticket();
                            tickets[call * GROUP + j] = ticket == null ? -1 : ticket;
                        }
                    });
        }, 8).blockLast(Duration.ofMinutes(30));
        System.out.printf("loaded %,d users%n", count);
        return tickets;
    }

    /**
     * Writes "user token" lines for {@code count} users in line spread over all ranks: tokens
     * carrying the ticket as the gateway signs them, or (the previous release's) without it.
     */
    private Path tokens(String name, WaitTokenCodec codec, long[] tickets, int count, boolean withTicket, long seed)
            throws IOException {
        Random random = new Random(seed);
        StringBuilder lines = new StringBuilder();
        Instant joined = Instant.now();
        int written = 0;
        while (written < count) {
            int i = random.nextInt(tickets.length);
            if (tickets[i] < 0) {
                continue;
            }
            lines.append(user(i)).append(' ')
                    .append(codec.issue(PRODUCT, user(i), false, joined, withTicket ? tickets[i] : null)).append('\n');
            written++;
        }
        Path file = work.resolve(name + ".tokens");
        Files.writeString(file, lines);
        return file;
    }

    private static String user(int i) {
        return "w" + i;
    }

    interface Load {
        Throughput.Run run() throws Exception;
    }

    private Stretch measure(Load load) throws Exception {
        Map<String, long[]> before = commandStats();
        double cpuBefore = cpu.seconds();
        long start = System.nanoTime();
        Throughput.Run run = load.run();
        double elapsed = (System.nanoTime() - start) / 1e9;
        double used = Math.max(0, cpu.seconds() - cpuBefore - idlePerSecond * elapsed);
        Map<String, long[]> after = commandStats();
        Map<String, long[]> delta = new HashMap<>();
        long scripts = 0;
        long commands = 0;
        for (Map.Entry<String, long[]> entry : after.entrySet()) {
            long[] was = before.getOrDefault(entry.getKey(), new long[2]);
            long calls = entry.getValue()[0] - was[0];
            delta.put(entry.getKey(), new long[] { calls, entry.getValue()[1] - was[1] });
            if (entry.getKey().equals("evalsha") || entry.getKey().equals("eval")) {
                scripts += calls;
            }
            if (!entry.getKey().equals("info")) {
                commands += calls;
            }
        }
        return new Stretch(used, scripts, commands, elapsed, run, delta);
    }

    /** Calls and µs by command: scripts' inner commands counted under their own names as well. */
    private Map<String, long[]> commandStats() {
        Map<String, long[]> stats = new HashMap<>();
        Matcher m = Pattern.compile("cmdstat_([^:]+):calls=(\\d+),usec=(\\d+)").matcher(redis.info("commandstats"));
        while (m.find()) {
            stats.put(m.group(1), new long[] { Long.parseLong(m.group(2)), Long.parseLong(m.group(3)) });
        }
        return stats;
    }

    private long usedMemory() {
        return Long.parseLong(Machine.find(redis.info("memory"), "used_memory:(\\d+)", "0"));
    }

    private Throughput.Run wrk(String base, String script, String argument, int seconds) throws Exception {
        List<String> command = List.of("wrk", "-t2", "-c" + connections, "-d" + seconds + "s", "--latency", "-s",
                "bench/wrk/" + script, base + "/api/products/" + PRODUCT, "--", argument);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IllegalStateException("wrk failed: " + output);
        }
        return Throughput.parse(output, 0, 0, 0);
    }

    /** Starts the waiting pages' JVM and waits until every stream is open. */
    private static Process startPages(String base, Path tokens) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-Xmx2g", "-cp", System.getProperty("java.class.path"),
                SseClients.class.getName(), base, PRODUCT, tokens.toString()).redirectErrorStream(true).start();
        BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = lines.readLine()) != null) {
            System.out.println("pages: " + line);
            if (line.startsWith("open ")) {
                Thread drain = new Thread(() -> lines.lines().forEach(l -> System.out.println("pages: " + l)));
                drain.setDaemon(true);
                drain.start();
                return process;
            }
        }
        throw new IllegalStateException("the waiting pages' JVM ended before its streams were open");
    }

    private static long heapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(500);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    // ---------------------------------------------------------------- the figures

    /** Polls a second the whole line sends at the shipped policy (no admission rate known yet: by rank). */
    static double pollsPerSecond(long waiting) {
        double polls = 0;
        for (long rank = 1; rank <= waiting; rank++) {
            polls += 1.0 / RetryAfter.of(rank, null, ABANDON_AFTER);
        }
        return polls;
    }

    /**
     * Redis CPU seconds a second that {@code waiting} polling shoppers cost: each poll answered
     * from a view, plus one answer from Redis per half token lifetime (the re-signing).
     */
    static double pollingLoad(long waiting, double localMicros, double redisMicros) {
        double renewalsPerSecond = waiting / (TOKEN_TTL.toSeconds() / 2.0);
        return (pollsPerSecond(waiting) * localMicros + renewalsPerSecond * redisMicros) / 1e6;
    }

    /** The most polling shoppers whose load stays within {@code share} of one core. */
    static long pollingCapacity(double share, double localMicros, double redisMicros) {
        long low = 1;
        long high = 1L << 40;
        while (low < high) {
            long middle = (low + high + 1) / 2;
            // Above 20 000 000 the head's faster polls no longer matter: extrapolate linearly.
            double load = middle <= 20_000_000 ? pollingLoad(middle, localMicros, redisMicros)
                    : pollingLoad(20_000_000, localMicros, redisMicros) * middle / 20_000_000.0;
            if (load <= share) {
                low = middle;
            }
            else {
                high = middle - 1;
            }
        }
        return low;
    }

    private static String report(int waiting, int streams, int seconds, double loadSeconds, long memory,
            Stretch local, Stretch viaRedis, Stretch held, Stretch storm, long heapDelta, double gatewayCpuShare,
            String loadAtStart, String command, RedisProcess redis, double idle) {
        double localMicros = local.microsPer(local.wrk().requests());
        double redisMicros = viaRedis.microsPer(viaRedis.wrk().requests());
        double perStreamMicrosPerSecond = held.redisCpuSeconds() * 1e6 / held.seconds() / streams;
        double renewalPerSecond = redisMicros / (TOKEN_TTL.toSeconds() / 2.0);
        double streamTotal = perStreamMicrosPerSecond + renewalPerSecond;
        long streamCapacity = (long) (0.5e6 / streamTotal);
        long pollCapacity = pollingCapacity(0.5, localMicros, redisMicros);
        double crowdPolls = pollsPerSecond(waiting);
        double crowdLoad = pollingLoad(waiting, localMicros, redisMicros);
        double heartbeats = held.seconds() / 15.0;
        long joins = storm.wrk().requests();
        double joinMicros = (storm.redisCpuSeconds() - held.redisCpuSeconds() / held.seconds() * storm.seconds())
                * 1e6 / joins;
        String redisVersion = Machine.find(redis.commands().info("server"), "redis_version:(\\S+)", "?");
        StringBuilder md = new StringBuilder();
        md.append("# The waiting crowd's cost to Redis\n\n")
                .append("Measured by `").append(command).append("` on ").append(Instant.now()).append(", commit `")
                .append(Machine.git("rev-parse", "--short", "HEAD")).append("`").append(Machine.uncommitted())
                .append(".\n\nMachine: ").append(Machine.describe()).append("; Redis ").append(redisVersion)
                .append(", ").append(Machine.wrkVersion()).append(". Redis, the gateway, wrk and the waiting pages ")
                .append("share the machine's cores; load average at start ").append(loadAtStart).append(", at the end ")
                .append(Machine.loadAverage()).append(".\n\n")
                .append(String.format(Locale.ROOT, "One product, %,d waiting, loaded through `join.lua` in calls of %d "
                                + "users (the gateway's group commit) in %.0f s; Redis holds %,d bytes (%.0f B a waiting "
                                + "user). max-active %d, abandon-after %d s, token lifetime %d h (signed again after "
                                + "half of it). Redis CPU is its main thread's (`INFO cpu`: user + sys), less what it "
                                + "spends with nothing asked of it (%.2f ms a second, measured first).%n%n",
                        waiting, GROUP, loadSeconds, memory, (double) memory / waiting, MAX_ACTIVE,
                        ABANDON_AFTER.toSeconds(), TOKEN_TTL.toHours(), idle * 1e3))
                .append("| what | load | Redis CPU | Redis calls |\n|---|---|---|---|\n")
                .append(String.format(Locale.ROOT, "| a poll answered from the gateway's view (token with its ticket) "
                                + "| %,.0f polls/s for %d s, p50 %.2f ms, p99 %.2f ms | **%.2f µs a poll** | %.3f scripts, "
                                + "%.3f commands a poll |%n", local.wrk().requestsPerSecond(), seconds, local.wrk().p50Ms(),
                        local.wrk().p99Ms(), localMicros, (double) local.scriptCalls() / local.wrk().requests(),
                        (double) local.commands() / local.wrk().requests()))
                .append(String.format(Locale.ROOT, "| a poll answered by Redis (`join.lua`; what a token due to be "
                                + "signed again takes) | %,.0f polls/s, p50 %.2f ms, p99 %.2f ms | %.2f µs a poll | "
                                + "%.3f scripts a poll |%n", viaRedis.wrk().requestsPerSecond(), viaRedis.wrk().p50Ms(),
                        viaRedis.wrk().p99Ms(), redisMicros, (double) viaRedis.scriptCalls() / viaRedis.wrk().requests()))
                .append(String.format(Locale.ROOT, "| %,d waiting pages holding their event stream, one gateway "
                                + "| %d s | %.4f µs a stream a second | %.1f scripts a second in all, %.1f a heartbeat "
                                + "(15 s) for all %,d streams |%n", streams, held.seconds() > 0 ? (int) held.seconds() : 0,
                        perStreamMicrosPerSecond, held.scriptCalls() / held.seconds(), held.scriptCalls() / heartbeats,
                        streams))
                .append(String.format(Locale.ROOT, "| a join storm on top of the streams (new users, no token) | "
                                + "%,.0f joins/s, p50 %.2f ms, p99 %.2f ms | %.2f µs a join | %.3f scripts a join |%n%n",
                        storm.wrk().requestsPerSecond(), storm.wrk().p50Ms(), storm.wrk().p99Ms(), joinMicros,
                        (double) storm.scriptCalls() / joins))
                .append(String.format(Locale.ROOT, "Gateway memory with %,d open streams: %,d bytes of heap more "
                                + "after GC, %.1f KB a stream. The gateway used %.0f%% of a core meanwhile (every stream "
                                + "looks at the view once a second).%n%n", streams, heapDelta,
                        heapDelta / 1024.0 / streams, gatewayCpuShare * 100))
                .append("Where Redis's time went, by command (`INFO commandstats`; a script's own commands are ")
                .append("counted under their names as well as inside `evalsha`):\n\n")
                .append("- polls from the view: ").append(local.breakdown()).append('\n')
                .append("- polls by Redis: ").append(viaRedis.breakdown()).append('\n')
                .append("- event streams held: ").append(held.breakdown()).append('\n')
                .append("- join storm: ").append(storm.breakdown()).append("\n\n")
                .append("## Waiting shoppers one Redis core holds at 50 % busy\n\n")
                .append(String.format(Locale.ROOT, "- **Polling** at the shipped `Retry-After` (1 s a hundred ranks, "
                                + "at most 20 s): %,d in line send %,.0f polls a second, costing Redis %.1f %% of a core "
                                + "(%.2f µs a poll, and one answer from Redis per waiter an hour at %.2f µs). One core "
                                + "at 50 %% holds **%,d polling shoppers**.%n", waiting, crowdPolls, crowdLoad * 100,
                        localMicros, redisMicros, pollCapacity))
                .append(String.format(Locale.ROOT, "- **On the waiting page** (event stream): %.4f µs a second a "
                                + "stream (seen marks every quarter abandon-after, the instance's view reads and heard "
                                + "marks, shared by %,d streams) plus a reload through Redis an hour (%.4f µs a second): "
                                + "%.4f µs a second a waiter. One core at 50 %% holds **%,d waiting pages** "
                                + "(extrapolated from %,d streams on a line of %,d; the per-instance share assumes "
                                + "%,d streams an instance).%n", perStreamMicrosPerSecond, streams, renewalPerSecond,
                        streamTotal, streamCapacity, streams, waiting, streams))
                .append(String.format(Locale.ROOT, "- **Joining** (new users on top of the streams, the storm "
                                + "above: abandon-after on, no sale times, pace or proof of work): %.2f µs a join, so "
                                + "one core at 50 %% takes **%,.0f joins a second** for one product (the target is "
                                + "40,000, at most 12.5 µs a join).%n", joinMicros, 500_000 / joinMicros));
        return md.toString();
    }
}
