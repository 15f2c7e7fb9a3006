package io.queuegate.bench;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.app.QueueGateApplication;
import io.queuegate.challenge.ProofOfWork;
import io.queuegate.challenge.Verdict;
import io.queuegate.config.QueuePolicy;
import io.queuegate.room.Joiner;
import io.queuegate.store.LuaScript;
import io.queuegate.store.ProductRules;
import io.queuegate.store.QueueKeys;
import io.queuegate.store.script.JoinScript;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.PowSolver;
import io.queuegate.support.RedisProcess;

import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import tools.jackson.databind.json.JsonMapper;

/**
 * What {@code join-challenge: pow} costs, and whom: how many solutions one gateway core verifies
 * per second (and how many challenges it hands out), what a join costs Redis's main thread with
 * and without a solution's single-use mark (and what a mark costs in memory), and how long the
 * default difficulty takes to solve in headless Chromium on this machine, and with Chromium's CPU
 * throttling at 4x and 6x as a stand-in for phones (a proxy, not a phone).
 *
 * <p>Run by {@code bench/run pow}; prints its report and writes it to the given file.
 */
public final class PowCosts {

    private static final String SECRET = GatewayInstance.SECRET;
    private static final int DIFFICULTY = QueuePolicy.DEFAULT_POW_DIFFICULTY;
    private static final String PRODUCT = "drop";
    private static final int CALLS = 100_000;
    private static final int BATCH = 500;
    private static final File CHROMIUM = new File("/usr/bin/chromium");
    private static final File CHROMEDRIVER = new File("/usr/bin/chromedriver");
    private static final JsonMapper JSON = new JsonMapper();

    public static void main(String[] args) throws Exception {
        Path out = args.length > 0 ? Path.of(args[0]) : null;
        int trials = args.length > 1 ? Integer.parseInt(args[1]) : 12;
        StringBuilder report = new StringBuilder();
        String started = Instant.now().toString();
        String load = Machine.loadAverage();
        report.append("# Proof of work at join\n\nWritten by `bench/run pow` on ").append(started, 0, 10)
                .append(" (").append(started).append("), commit `").append(Machine.git("rev-parse", "--short", "HEAD"))
                .append('`').append(Machine.uncommitted()).append(".\n\nMachine: ").append(Machine.describe())
                .append(". Load average (1, 5, 15 min) at the start: ").append(load).append(".\n\n");
        // Each part printed as it is done: the browser's part is the one most likely to fail.
        for (java.util.concurrent.Callable<String> part : List.<java.util.concurrent.Callable<String>>of(
                PowCosts::verification, PowCosts::redis, () -> browser(trials))) {
            String done = part.call();
            System.out.println(done);
            report.append(done);
        }
        report.append("\nLoad average at the end: ").append(Machine.loadAverage())
                .append(" (a load above the core count means other work shared the machine).\n");
        if (out != null) {
            Files.writeString(out, report.toString());
        }
    }

    // ---- one gateway core -------------------------------------------------------------------

    /** Solutions verified and challenges issued per second on one thread, after a warm-up. */
    private static String verification() {
        ProofOfWork pow = new ProofOfWork(ProofOfWork.derivedKey(SECRET), List.of(), Duration.ofMinutes(2),
                Clock.systemUTC());
        // Solutions of an easy difficulty: verifying costs the same whatever the difficulty was.
        List<String> solutions = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            solutions.add(PowSolver.solve(JSON.valueToTree(pow.issue(PRODUCT, 500))));
        }
        rate(() -> pow.verify(PRODUCT, solutions.get(0)), Duration.ofSeconds(3));
        double[] verify = new double[3];
        double[] issue = new double[3];
        for (int round = 0; round < 3; round++) {
            int[] next = { 0 };
            verify[round] = rate(() -> {
                Verdict verdict = pow.verify(PRODUCT, solutions.get(next[0]++ % solutions.size()));
                if (!(verdict instanceof Verdict.Solved)) {
                    throw new IllegalStateException("a solution was refused: " + verdict);
                }
            }, Duration.ofSeconds(5));
            issue[round] = rate(() -> pow.issue(PRODUCT, DIFFICULTY), Duration.ofSeconds(5));
        }
        return String.format(Locale.ROOT, """
                ## One gateway core

                `ProofOfWork.verify` (decode the header, read its JSON, SHA-256 of salt and number, HMAC-SHA256 \
                of the challenge, read the salt's product and expiry) and `ProofOfWork.issue` (a new challenge: \
                random salt and number, SHA-256, HMAC), on one thread, 3 rounds of 5 s after a 3 s warm-up; the \
                median round. Verifying is all a join's proof of work costs the gateway; the single-use mark \
                rides in the join's own script call (below). Issuing is what a request without a solution costs \
                (the 428 answer, besides HTTP).

                | work, one thread | per second (median) | µs each | rounds |
                |---|---|---|---|
                | verify a solution | %,.0f | %.1f | %s |
                | issue a challenge | %,.0f | %.1f | %s |

                """, Rounds.median(verify), 1e6 / Rounds.median(verify), rounds(verify), Rounds.median(issue),
                1e6 / Rounds.median(issue), rounds(issue));
    }

    private static double rate(Runnable work, Duration duration) {
        long end = System.nanoTime() + duration.toNanos();
        long count = 0;
        long started = System.nanoTime();
        while (System.nanoTime() < end) {
            for (int i = 0; i < 100; i++) {
                work.run();
            }
            count += 100;
        }
        return count / ((System.nanoTime() - started) / 1e9);
    }

    // ---- Redis ----------------------------------------------------------------------------

    /** Redis main-thread CPU per join.lua call, with and without a mark, and memory per mark. */
    private static String redis() {
        try (RedisProcess redis = RedisProcess.start(List.of("maxmemory 0"))) {
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", redis.port()));
            client.setDefaultTimeout(Duration.ofMinutes(2));
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                RedisCommands<String, String> sync = connection.sync();
                RedisAsyncCommands<String, String> async = connection.async();
                RedisCpu cpu = new RedisCpu(sync);
                String join = sync.scriptLoad(LuaScript.load("join.lua").source());
                String[] keys = QueueKeys.of(PRODUCT).forScripts().toArray(String[]::new);
                double[] plain = new double[3];
                double[] marked = new double[3];
                double[] groupPlain = new double[3];
                double[] groupMarked = new double[3];
                for (int round = 0; round < 3; round++) {
                    String r = "r" + round;
                    plain[round] = perCall(connection, cpu, CALLS, i -> async.evalsha(join, ScriptOutputType.MULTI, keys,
                            joinArgs(false, r + "-plain-" + i)));
                    marked[round] = perCall(connection, cpu, CALLS, i -> async.evalsha(join, ScriptOutputType.MULTI, keys,
                            joinArgs(true, r + "-marked-" + i)));
                    groupPlain[round] = perCall(connection, cpu, CALLS / 64, i -> async.evalsha(join,
                            ScriptOutputType.MULTI, keys, joinArgs(false, group(r + "-gplain-" + i)))) / 64;
                    groupMarked[round] = perCall(connection, cpu, CALLS / 64, i -> async.evalsha(join,
                            ScriptOutputType.MULTI, keys, joinArgs(true, group(r + "-gmarked-" + i)))) / 64;
                }
                // Memory: a fresh Redis-side count of what 100k marks hold.
                sync.flushall();
                long before = usedMemory(sync);
                pipelined(connection, CALLS, i -> async.set(QueueKeys.of(PRODUCT).challenge(mark("m" + i)), "1",
                        io.lettuce.core.SetArgs.Builder.nx().px(150_000)));
                long bytesPerMark = (usedMemory(sync) - before) / CALLS;
                return String.format(Locale.ROOT, """
                        ## Redis

                        Redis %s main-thread CPU (`INFO cpu`, user + sys of the main thread) per user joined \
                        through `join.lua`: new users of one product (max-active 10, a line growing to about \
                        %,d over the rounds), pipelined in batches of %d as many gateways would send them; 3 rounds, interleaved, \
                        median. "with a mark" is a join that paid a proof of work: the same call also takes the \
                        solution's single-use mark (`SET qg:{pid}:pow:<mark> 1 NX PX <ttl>`), the one write it adds. \
                        Group commit: 64 users in one call, as the gateway sends a join storm.

                        | join.lua | µs per user, without pow | µs per user, with a mark | difference |
                        |---|---|---|---|
                        | one user per call | %.2f %s | %.2f %s | %+.2f |
                        | 64 users per call (group commit) | %.2f %s | %.2f %s | %+.2f |

                        A mark takes about %d bytes of Redis memory (`used_memory` growth over %,d marks) for \
                        its lifetime: the challenge's ttl plus 30 s (2.5 minutes by default), then it expires by \
                        itself. A join storm of 100,000 joins a minute holds about %.0f MB of marks.

                        """, redisVersion(sync), 12 * CALLS, BATCH,
                        Rounds.median(plain), rounds(plain), Rounds.median(marked), rounds(marked),
                        Rounds.median(marked) - Rounds.median(plain), Rounds.median(groupPlain), rounds(groupPlain),
                        Rounds.median(groupMarked), rounds(groupMarked),
                        Rounds.median(groupMarked) - Rounds.median(groupPlain), bytesPerMark, CALLS,
                        bytesPerMark * 100_000 * 2.5 / 1e6);
            }
            finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    interface Call {
        RedisFuture<?> send(int i);
    }

    private static double perCall(StatefulRedisConnection<String, String> connection, RedisCpu cpu, int calls,
            Call call) {
        double before = cpu.seconds();
        pipelined(connection, calls, call);
        return (cpu.seconds() - before) * 1e6 / calls;
    }

    private static void pipelined(StatefulRedisConnection<String, String> connection, int count, Call call) {
        connection.setAutoFlushCommands(false);
        try {
            List<RedisFuture<?>> futures = new ArrayList<>(BATCH);
            for (int i = 0; i < count; i++) {
                futures.add(call.send(i));
                if (futures.size() == BATCH) {
                    flush(connection, futures);
                }
            }
            flush(connection, futures);
        }
        finally {
            connection.setAutoFlushCommands(true);
        }
    }

    private static void flush(StatefulRedisConnection<String, String> connection, List<RedisFuture<?>> futures) {
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

    /** join.lua's arguments as the gateway passes them, under the default rules. */
    private static String[] joinArgs(boolean marked, String... users) {
        ProductRules rules = new ProductRules(10, Duration.ofMinutes(10), "pubsub", null, null, 0, Duration.ofSeconds(60),
                Duration.ofSeconds(60));
        List<Joiner> joiners = Arrays.stream(users)
                .map(user -> marked ? new Joiner(user, null, mark(user), Duration.ofMillis(150_000))
                        : new Joiner(user, null))
                .toList();
        return RawScripts.join(new JoinScript.Args(PRODUCT, System.currentTimeMillis(), rules,
                Duration.ofMillis(7_800_000), null, joiners));
    }

    private static String[] group(String prefix) {
        String[] users = new String[64];
        for (int i = 0; i < 64; i++) {
            users[i] = prefix + "-" + i;
        }
        return users;
    }

    /** A mark as the gateway makes one: 32 hex characters of a challenge's hash. */
    private static String mark(String seed) {
        return HexFormat.of().formatHex(sha256(seed)).substring(0, 32);
    }

    private static long usedMemory(RedisCommands<String, String> redis) {
        return Long.parseLong(Machine.find(redis.info("memory"), "used_memory:(\\d+)", "0"));
    }

    private static String redisVersion(RedisCommands<String, String> redis) {
        return Machine.find(redis.info("server"), "redis_version:(\\S+)", "?");
    }

    // ---- the browser ------------------------------------------------------------------------

    /**
     * The default difficulty solved by the shipped page in headless Chromium, end to end (the
     * page's own timing: worker start to solution), at CPU throttling 1x, 4x and 6x; and the same
     * solver run on the page's main thread for exactly the expected work, which DevTools' CPU
     * throttling certainly slows (whether it reaches a Web Worker's thread is measured, not assumed).
     */
    private static String browser(int trials) throws Exception {
        if (!CHROMIUM.canExecute() || !CHROMEDRIVER.canExecute()) {
            return "## The browser\n\nNot measured: no Chromium at /usr/bin/chromium (apt-get install chromium "
                    + "chromium-driver).\n";
        }
        StringBuilder rows = new StringBuilder();
        String version;
        String throttling;
        try (RedisProcess redis = RedisProcess.start()) {
            WireMockServer backend = Backend.start();
            // The runnable gateway (its Spring Security lets every request through to the routes).
            Map<String, Object> properties = GatewayInstance.defaults(redis, backend.baseUrl(),
                    Map.of("max-active", "1000000", "join-challenge", "pow"));
            properties.put("management.server.port", "0");
            GatewayInstance gateway = GatewayInstance.start(QueueGateApplication.class, properties);
            Path profile = Files.createTempDirectory("queuegate-bench-chromium-");
            ChromeDriver chromium = chromium(profile);
            try {
                version = String.valueOf(chromium.getCapabilities().getBrowserVersion());
                chromium.get(gateway.baseUrl() + "/queue/none/status");
                String solver = solverSource(gateway);
                int product = 0;
                double[] pageMeans = new double[3];
                double[] mainMedians = new double[3];
                int row = 0;
                for (int rate : new int[] { 1, 4, 6 }) {
                    chromium.executeCdpCommand("Emulation.setCPUThrottlingRate", Map.of("rate", rate));
                    double[] page = new double[trials];
                    for (int t = 0; t < trials; t++) {
                        page[t] = pageSolve(chromium, gateway, "p" + (product++));
                    }
                    double[] main = new double[Math.max(3, trials / 3)];
                    for (int t = 0; t < main.length; t++) {
                        main[t] = mainThreadSolve(chromium, solver, t);
                    }
                    Arrays.sort(page);
                    Arrays.sort(main);
                    pageMeans[row] = mean(page);
                    double mainMedian = Rounds.median(main);
                    mainMedians[row++] = mainMedian;
                    rows.append(String.format(Locale.ROOT, "| %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %,.0f |%n",
                            rate == 1 ? "1x (this desktop)" : rate + "x (phone proxy)", trials, mean(page) / 1000,
                            Rounds.median(page) / 1000, page[(int) Math.ceil(trials * 0.9) - 1] / 1000,
                            page[trials - 1] / 1000, mainMedian / 1000, DIFFICULTY / (mainMedian / 1000)));
                }
                chromium.executeCdpCommand("Emulation.setCPUThrottlingRate", Map.of("rate", 1));
                double workerSlowdown = pageMeans[2] / pageMeans[0];
                double mainSlowdown = mainMedians[2] / mainMedians[0];
                throttling = workerSlowdown < mainSlowdown / 2
                        ? String.format(Locale.ROOT, "At 6x the page's solves took %.1f times as long as unthrottled, "
                                + "the main thread's %.1f times: DevTools' CPU throttling does not reach the Web "
                                + "Worker's thread here, so **the phone figures are the main-thread column** (the "
                                + "same code, throttled), not the page's.", workerSlowdown, mainSlowdown)
                        : String.format(Locale.ROOT, "At 6x the page's solves took %.1f times as long as "
                                + "unthrottled, the main thread's %.1f times: the throttling reached the worker.",
                                workerSlowdown, mainSlowdown);
            }
            finally {
                chromium.quit();
                org.springframework.util.FileSystemUtils.deleteRecursively(profile.toFile());
                gateway.close();
                backend.stop();
            }
        }
        return String.format(Locale.ROOT, """
                ## The browser

                The default `pow-difficulty` (%,d expected hashes: the secret number is uniform below %,d) solved \
                by the shipped challenge page (`queuegate/challenge-page.html`: plain-JavaScript SHA-256 in a Web \
                Worker) in headless Chromium %s, through a running gateway: each trial a new product, so a new \
                challenge; the time is the page's own, from starting the worker to the solution \
                (`sessionStorage['queuegate.solved-ms']`). Throttled rows use DevTools' \
                `Emulation.setCPUThrottlingRate` on the page: a stand-in for a phone, labelled as such, not a \
                measurement of one. "Main thread" runs the same solver on the page's main thread for exactly the \
                expected work (a challenge whose number is %,d), to show what the throttling does to the code \
                itself; the hash rate is from that row.

                | CPU | trials | page (Web Worker): mean s | median s | p90 s | max s | main thread, expected work: s | hashes/s (main thread) |
                |---|---|---|---|---|---|---|---|
                %s
                %s A solve's time varies with the secret number, uniformly up to twice the expected work: the \
                mean over many solves approaches the expected work's time, and the slowest shopper waits twice \
                that.
                """, DIFFICULTY, 2 * DIFFICULTY, version, DIFFICULTY, rows, throttling);
    }

    /** One product opened by a fresh visitor; the page solves, joins, reloads; its own timing. */
    private static double pageSolve(ChromeDriver chromium, GatewayInstance gateway, String product) {
        chromium.manage().deleteAllCookies();
        chromium.executeScript("sessionStorage.clear()");
        chromium.get(gateway.baseUrl() + "/api/products/" + product);
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (System.nanoTime() < deadline) {
            Object solved;
            try {
                solved = chromium.executeScript("return sessionStorage.getItem('queuegate.solved-ms')");
            }
            catch (RuntimeException navigating) {
                solved = null;
            }
            if (solved != null) {
                return Double.parseDouble(solved.toString());
            }
            sleep(50);
        }
        throw new IllegalStateException("the page did not solve product " + product + " within two minutes");
    }

    /** The page's solver on the main thread, for a challenge whose number is exactly the expected work. */
    private static double mainThreadSolve(ChromeDriver chromium, String solver, int seed) {
        String salt = HexFormat.of().formatHex(sha256("bench-" + seed)).substring(0, 24) + "?expires=9999999999&product="
                + PRODUCT + "&";
        String challenge = HexFormat.of().formatHex(sha256(salt + DIFFICULTY));
        Object took = chromium.executeScript("""
                var result;
                var handler = new Function('postMessage', 'var onmessage;\\n' + arguments[0] + '\\n;return onmessage;')(
                    function (n) { result = n; });
                var started = performance.now();
                handler({ data: { salt: arguments[1], challenge: arguments[2], maxnumber: arguments[3] } });
                if (result !== arguments[4]) { throw new Error('solved ' + result); }
                return performance.now() - started;
                """, solver, salt, challenge, 2 * DIFFICULTY, DIFFICULTY);
        return ((Number) took).doubleValue();
    }

    /** The Web Worker's source, as the challenge page ships it. */
    private static String solverSource(GatewayInstance gateway) throws Exception {
        var client = java.net.http.HttpClient.newHttpClient();
        var answer = client.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(gateway.baseUrl()
                + "/api/products/solver-source")).header("Accept", "text/html").build(),
                java.net.http.HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        String html = answer.body();
        int start = html.indexOf("<script type=\"text/plain\" id=\"solver\">");
        int end = html.indexOf("</script>", start);
        if (start < 0 || end < 0) {
            throw new IllegalStateException("no solver in the challenge page: " + answer.statusCode());
        }
        return html.substring(html.indexOf('>', start) + 1, end);
    }

    private static ChromeDriver chromium(Path profile) {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--disable-quic", "--window-size=420,860", "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER)
                .usingAnyFreePort().build();
        return new ChromeDriver(service, options);
    }

    // ---- numbers ----------------------------------------------------------------------------

    private static double mean(double[] values) {
        return Arrays.stream(values).average().orElse(0);
    }

    private static String rounds(double[] values) {
        StringBuilder text = new StringBuilder("(");
        for (int i = 0; i < values.length; i++) {
            text.append(i == 0 ? "" : ", ").append(values[i] >= 100 ? String.format(Locale.ROOT, "%,.0f", values[i])
                    : String.format(Locale.ROOT, "%.2f", values[i]));
        }
        return text.append(')').toString();
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        }
        catch (java.security.NoSuchAlgorithmException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
