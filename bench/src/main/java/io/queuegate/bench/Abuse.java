package io.queuegate.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.app.QueueGateApplication;
import io.queuegate.config.QueuePolicy;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.PowSolver;
import io.queuegate.support.RedisProcess;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;

/**
 * What the waiting room gives away for free, and what it now costs the one who takes it, through
 * a real gateway on a real Redis:
 * <ul>
 * <li>the bytes and the lifetime an invented product id leaves in Redis: when the shop answers
 * it (a catch-all page), when the shop answers {@code 404}, and with
 * {@code queuegate.unknown-products: refuse};</li>
 * <li>the proof of work one address pays for 100 and for 1,000 places an hour on one product:
 * the difficulty the gateway asked for each place (read from each challenge, at a small base so
 * the run is short), scaled to the default difficulty and priced at this machine's measured hash
 * rate;</li>
 * <li>the wait, until they hold a place, of the honest shoppers among 600 behind one NAT address
 * who arrive at the same moment: each solves what the gateway asks, in the time a browser takes
 * for that difficulty (the page's own figures: bench/results/pow.md), and tries again when the
 * gateway asks for more by the time they answer.</li>
 * </ul>
 *
 * <p>Run by {@code bench/run abuse}; prints its report and writes it to the given file.
 */
public final class Abuse {

    private static final JsonMapper JSON = new JsonMapper();
    private static final Pattern DIFFICULTY = Pattern.compile("[?&]difficulty=(\\d+)");
    private static final int INVENTED = 2_000;
    /** The base difficulty the gateway runs with for the proof-of-work parts: small, so the run is short. */
    private static final int SMALL_BASE = 1_000;
    private static final int DEFAULT_BASE = QueuePolicy.DEFAULT_POW_DIFFICULTY;
    /** The shipped page's time for the default difficulty: desktop, and 6x CPU throttling (bench/results/pow.md). */
    private static final double DESKTOP_SECONDS = 0.15;
    private static final double PHONE_SECONDS = 1.0;
    private static final int CROWD = 600;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .executor(Executors.newFixedThreadPool(8)).build();

    public static void main(String[] args) throws Exception {
        // The gateways' and the HTTP client's threads would keep the JVM alive, a failed run's too.
        try {
            run(args);
        }
        catch (Throwable failed) {
            failed.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    private static void run(String[] args) throws Exception {
        Path out = args.length > 0 ? Path.of(args[0]) : null;
        String started = Instant.now().toString();
        StringBuilder report = new StringBuilder();
        report.append("# What is given away for free\n\nWritten by `bench/run abuse` on ").append(started, 0, 10)
                .append(" (").append(started).append("), commit `").append(Machine.git("rev-parse", "--short", "HEAD"))
                .append('`').append(Machine.uncommitted()).append(".\n\nMachine: ").append(Machine.describe())
                .append(". Load average (1, 5, 15 min) at the start: ").append(Machine.loadAverage()).append(".\n\n");
        Abuse bench = new Abuse();
        // Each part printed as it is done.
        for (java.util.concurrent.Callable<String> measured : List.<java.util.concurrent.Callable<String>>of(
                bench::inventedProducts, bench::placesFromOneAddress, bench::natCrowd)) {
            String part = measured.call();
            System.out.println(part);
            report.append(part);
        }
        report.append("\nLoad average at the end: ").append(Machine.loadAverage())
                .append(" (a load above the core count means other work shared the machine).\n");
        if (out != null) {
            Files.writeString(out, report.toString());
        }
    }

    // ---- invented product ids ------------------------------------------------------------------

    private String inventedProducts() throws Exception {
        StringBuilder rows = new StringBuilder();
        try (RedisProcess redis = RedisProcess.start(List.of("maxmemory 0"))) {
            WireMockServer shop = Backend.start();
            // The shop sells nothing under these ids; the catch-all above answers every other id.
            shop.stubFor(get(urlPathMatching("/api/products/gone-.*")).willReturn(aResponse().withStatus(404)));
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", redis.port()));
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                RedisCommands<String, String> sync = connection.sync();
                for (boolean refuse : new boolean[] { false, true }) {
                    Map<String, Object> properties = GatewayInstance.defaults(redis, shop.baseUrl(),
                            Map.of("max-active", "1", "join-challenge", "none"));
                    properties.put("queuegate.joins.max-per-address", "1000000");
                    properties.put("queuegate.products.real.max-active", "1");
                    if (refuse) {
                        properties.put("queuegate.unknown-products", "refuse");
                    }
                    try (GatewayInstance gateway = runnable(properties)) {
                        if (!refuse) {
                            rows.append(invented(gateway, sync, "answered by the shop (200)", "ok-", 200, false));
                            rows.append(invented(gateway, sync, "the shop answers `404`", "gone-", 404, false));
                            rows.append(invented(gateway, sync, "someone waits in it (a second request)", "busy-", 200, true));
                        }
                        else {
                            rows.append(invented(gateway, sync, "`unknown-products: refuse`", "no-", 404, false));
                        }
                    }
                }
                sync.flushall();
                String activity = indexCost(sync);
                return String.format(Locale.ROOT, """
                        ## Invented product ids

                        %,d requests, each for a new product id the shop does not sell, each from a new \
                        anonymous caller (no proof of work: the join limits lifted, `join-challenge: none`), \
                        through one gateway (`max-active: 1`, the default `session-ttl` of 10 minutes and token \
                        ttl of 2 hours). Bytes: growth of Redis's `used_memory` over the requests, divided by \
                        them, measured once the gateway's batched writes (every 250 ms) had landed; the \
                        product's own keys are those named `qg:{<id>}:*`. Lifetime: the longest `PTTL` among \
                        one product's keys. Before this round (the issue's measurement) every invented id \
                        left about 0.9 KB for 2 h 10 min.

                        | an invented id that is … | bytes per id (`used_memory`) | its own keys | lifetime of its keys | script calls per request |
                        |---|---|---|---|---|
                        %s
                        %s
                        """, INVENTED, rows, activity);
            }
            finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
                shop.stop();
            }
        }
    }

    private String invented(GatewayInstance gateway, RedisCommands<String, String> redis, String label, String prefix,
            int status, boolean someoneWaits) throws Exception {
        settle();
        long memory = usedMemory(redis);
        long commands = commands(redis);
        for (int i = 0; i < INVENTED; i++) {
            int answered = send(gateway, prefix + i, null).statusCode();
            if (answered != status) {
                throw new IllegalStateException(label + ": expected " + status + ", got " + answered);
            }
            if (someoneWaits && send(gateway, prefix + i, null).statusCode() != 429) {
                throw new IllegalStateException(label + ": the second shopper was not made to wait");
            }
        }
        long commandsAfter = commands(redis);
        settle();
        long bytes = (usedMemory(redis) - memory) / INVENTED;
        String product = prefix + (INVENTED / 2);
        List<String> keys = keys(redis, "qg:{" + product + "}:*");
        long lifetime = keys.stream().mapToLong(redis::pttl).max().orElse(0);
        double perRequest = (commandsAfter - commands) / (double) (INVENTED * (someoneWaits ? 2 : 1));
        return String.format(Locale.ROOT, "| %s | %,d | %d | %s | %.2f |\n", label, bytes, keys.size(),
                keys.isEmpty() ? "none" : duration(lifetime), perRequest);
    }

    /** What the activity index (qg:activity) holds at its bound, the one structure a flood grows. */
    private String indexCost(RedisCommands<String, String> redis) {
        long before = usedMemory(redis);
        Map<String, Double> scored = new HashMap<>();
        long now = System.currentTimeMillis();
        for (int i = 0; i < 10_000; i++) {
            scored.put("invented-product-" + i, (double) now + i);
        }
        scored.forEach((member, score) -> redis.zadd("qg:activity", score, member));
        long bytes = usedMemory(redis) - before;
        return String.format(Locale.ROOT, """
                Besides each product's keys, the activity index `qg:activity` gains a member per product \
                (the operators' ranking); it is trimmed to the 10,000 most recent and to 3 hours, so a \
                flood costs it at most about %.1f MB (%,d bytes measured at 10,000 members of 24 characters), \
                whatever the flood's size.

                """, bytes / 1e6, bytes);
    }

    // ---- places from one address --------------------------------------------------------------

    private String placesFromOneAddress() throws Exception {
        List<Integer> factors = new ArrayList<>();
        double elapsed;
        try (RedisProcess redis = RedisProcess.start(List.of("maxmemory 0"))) {
            WireMockServer shop = Backend.start();
            try (GatewayInstance gateway = runnable(powGateway(redis, shop))) {
                long start = System.nanoTime();
                for (int place = 0; place < 1_000; place++) {
                    JsonNode challenge = challenge(gateway, "drop");
                    factors.add(difficulty(challenge) / SMALL_BASE);
                    int status = send(gateway, "drop", PowSolver.solve(challenge)).statusCode();
                    if (status != 200 && status != 429) {
                        throw new IllegalStateException("a paid join got " + status);
                    }
                }
                elapsed = (System.nanoTime() - start) / 1e9;
            }
            finally {
                shop.stop();
            }
        }
        if (elapsed >= 3_600) {
            throw new IllegalStateException("1,000 places took " + elapsed + " s: longer than the hour they are counted over");
        }
        double hashesPerSecond = hashRate();
        StringBuilder rows = new StringBuilder();
        for (int places : new int[] { 30, 100, 600, 1_000 }) {
            long units = factors.subList(0, places).stream().mapToLong(Integer::longValue).sum();
            double hashes = (double) units * DEFAULT_BASE;
            rows.append(String.format(Locale.ROOT, "| %,d | %d× | %.1f× | %,.0f million | %,.0f s | %,.0f s |\n",
                    places, factors.get(places - 1), units / (double) places, hashes / 1e6, hashes / hashesPerSecond,
                    units * DESKTOP_SECONDS));
        }
        return String.format(Locale.ROOT, """
                ## Places from one address

                One address takes places on one product as fast as it can: each a new anonymous caller \
                (no token), `join-challenge: anonymous`, the join limits lifted to isolate the proof of \
                work. The gateway ran with a base difficulty of %,d so that 1,000 places take %.0f s (well within \
                the hour the places are counted over); each challenge says its difficulty, and the factor \
                over the base is what the gateway asked. Hashes are those factors times the default \
                `pow-difficulty` (%,d). A Java solver (`PowSolver`, one thread, `MessageDigest`) does \
                %,.1f million hashes a second on this machine; native code does more, a browser less \
                (the shipped page: %.2f s for the default difficulty on this machine's Chromium).

                | places an hour | factor of the last | mean factor | expected hashes | one core, Java | the shipped page (desktop) |
                |---|---|---|---|---|---|
                %s
                The price is counted per instance over a sliding hour: the first 30 places of the hour \
                cost the base, every 30 more one base more. Before, it counted a minute that started \
                afresh, and the first 60 places of each minute cost the base: 1,000 places spread over \
                the hour cost 1,000 times the base, %,.0f million hashes (as at the flat difficulty \
                before that, when a place taken again after a leave, with the old token, cost nothing).

                """, SMALL_BASE, elapsed, DEFAULT_BASE, hashesPerSecond / 1e6, DESKTOP_SECONDS, rows,
                1_000.0 * DEFAULT_BASE / 1e6);
    }

    /** Hashes a second of the Java solver at the default difficulty, over about ten solutions. */
    private static double hashRate() {
        io.queuegate.challenge.ProofOfWork pow = new io.queuegate.challenge.ProofOfWork(
                io.queuegate.challenge.ProofOfWork.derivedKey(GatewayInstance.SECRET), List.of(), Duration.ofMinutes(2),
                java.time.Clock.systemUTC());
        long hashes = 0;
        long start = System.nanoTime();
        for (int i = 0; i < 12; i++) {
            JsonNode challenge = JSON.valueToTree(pow.issue("warm", DEFAULT_BASE));
            String solution = PowSolver.solve(challenge);
            hashes += JSON.readTree(java.util.Base64.getDecoder().decode(solution)).path("number").asLong() + 1;
        }
        return hashes / ((System.nanoTime() - start) / 1e9);
    }

    // ---- the honest crowd behind one NAT -------------------------------------------------------

    private String natCrowd() throws Exception {
        StringBuilder rows = new StringBuilder();
        for (double secondsPerBase : new double[] { DESKTOP_SECONDS, PHONE_SECONDS }) {
            try (RedisProcess redis = RedisProcess.start(List.of("maxmemory 0"))) {
                WireMockServer shop = Backend.start();
                try (GatewayInstance gateway = runnable(powGateway(redis, shop))) {
                    rows.append(crowd(gateway, secondsPerBase));
                }
                finally {
                    shop.stop();
                }
            }
        }
        return String.format(Locale.ROOT, """
                ## The honest crowd behind one NAT

                %d shoppers behind one address (a carrier's NAT) open the product page at the same moment, \
                as at a sale's opening, on a route with `join-challenge: anonymous`. Each solves the \
                challenge the gateway gives them in the time the shipped page takes for that difficulty \
                (the base's time times the factor asked: %.2f s on this machine's desktop Chromium, %.1f s \
                under 6x CPU throttling, a phone's stand-in; bench/results/pow.md), then sends the solution; \
                a solution of a challenge that has become too easy by then gets a fresh one, solved again. \
                The wait is from opening the page to holding a place in line (a token: admitted or told \
                the rank), over all %d; without a proof of work it is one round trip.

                | device | median | p90 | the slowest | solved twice or more | most solves by one shopper |
                |---|---|---|---|---|---|
                %s
                """, CROWD, DESKTOP_SECONDS, PHONE_SECONDS, CROWD, rows);
    }

    private String crowd(GatewayInstance gateway, double secondsPerBase) throws Exception {
        ExecutorService shoppers = Executors.newFixedThreadPool(CROWD);
        try {
            long start = System.nanoTime();
            List<Future<long[]>> waits = new ArrayList<>();
            for (int i = 0; i < CROWD; i++) {
                waits.add(shoppers.submit(() -> {
                    int solves = 0;
                    while (true) {
                        JsonNode challenge = challenge(gateway, "opening");
                        String solution = PowSolver.solve(challenge);
                        solves++;
                        // The device's time for this difficulty, less what the cheap solve above took.
                        long device = (long) (difficulty(challenge) / (double) SMALL_BASE * secondsPerBase * 1000);
                        Thread.sleep(device);
                        int status = send(gateway, "opening", solution).statusCode();
                        if (status == 200 || status == 429) {
                            return new long[] { (System.nanoTime() - start) / 1_000_000, solves };
                        }
                        if (status != 428) {
                            throw new IllegalStateException("a paid join got " + status);
                        }
                    }
                }));
            }
            long[] millis = new long[CROWD];
            int twice = 0;
            int most = 0;
            for (int i = 0; i < CROWD; i++) {
                long[] wait = waits.get(i).get();
                millis[i] = wait[0];
                twice += wait[1] >= 2 ? 1 : 0;
                most = Math.max(most, (int) wait[1]);
            }
            Arrays.sort(millis);
            return String.format(Locale.ROOT, "| %s (%.2f s a base solve) | %.1f s | %.1f s | %.1f s | %d | %d |\n",
                    secondsPerBase == DESKTOP_SECONDS ? "desktop" : "phone stand-in", secondsPerBase,
                    millis[CROWD / 2] / 1e3, millis[CROWD * 9 / 10] / 1e3, millis[CROWD - 1] / 1e3, twice, most);
        }
        finally {
            shoppers.shutdownNow();
        }
    }

    // ---- helpers --------------------------------------------------------------------------------

    /** The runnable gateway as shipped (its Spring Security lets shoppers through to the routes), with these settings. */
    private static GatewayInstance runnable(Map<String, Object> properties) {
        properties.put("management.server.port", "0");
        return GatewayInstance.start(QueueGateApplication.class, properties);
    }

    private static Map<String, Object> powGateway(RedisProcess redis, WireMockServer shop) {
        Map<String, Object> properties = GatewayInstance.defaults(redis, shop.baseUrl(), Map.of(
                "max-active", "100000",
                "join-challenge", "anonymous",
                "pow-difficulty", Integer.toString(SMALL_BASE)));
        properties.put("queuegate.joins.max-per-address", "1000000");
        return properties;
    }

    /** A fresh caller's first request, which must be answered with a challenge. */
    private JsonNode challenge(GatewayInstance gateway, String productId) throws Exception {
        HttpResponse<String> answer = send(gateway, productId, null);
        if (answer.statusCode() != 428) {
            throw new IllegalStateException("expected a challenge, got " + answer.statusCode() + " " + answer.body());
        }
        return JSON.readTree(answer.body()).path("challenge");
    }

    private static int difficulty(JsonNode challenge) {
        Matcher matcher = DIFFICULTY.matcher(challenge.path("salt").asString());
        if (!matcher.find()) {
            throw new IllegalStateException("a challenge without its difficulty: " + challenge);
        }
        return Integer.parseInt(matcher.group(1));
    }

    /** A GET of the product page by an anonymous caller with no token, with a solution or none. */
    private HttpResponse<String> send(GatewayInstance gateway, String productId, String solution) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(gateway.baseUrl() + "/api/products/" + productId))
                .header("Accept", "application/json").timeout(Duration.ofSeconds(30));
        if (solution != null) {
            request.header("Queue-Challenge", solution);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Lets the gateway's batched writes (every 250 ms) land. */
    private static void settle() throws InterruptedException {
        Thread.sleep(1_000);
    }

    private static List<String> keys(RedisCommands<String, String> redis, String pattern) {
        List<String> keys = new ArrayList<>();
        io.lettuce.core.KeyScanCursor<String> cursor = redis.scan(ScanArgs.Builder.matches(pattern).limit(1000));
        keys.addAll(cursor.getKeys());
        while (!cursor.isFinished()) {
            cursor = redis.scan(cursor, ScanArgs.Builder.matches(pattern).limit(1000));
            keys.addAll(cursor.getKeys());
        }
        return keys;
    }

    private static long usedMemory(RedisCommands<String, String> redis) {
        return Long.parseLong(Machine.find(redis.info("memory"), "used_memory:(\\d+)", "0"));
    }

    /** Script calls Redis has run ({@code EVALSHA} and {@code EVAL}): what a request costs it. */
    private static long commands(RedisCommands<String, String> redis) {
        String stats = redis.info("commandstats");
        return Long.parseLong(Machine.find(stats, "cmdstat_evalsha:calls=(\\d+)", "0"))
                + Long.parseLong(Machine.find(stats, "cmdstat_eval:calls=(\\d+)", "0"));
    }

    private static String duration(long millis) {
        Duration duration = Duration.ofMillis(millis);
        return duration.toHours() > 0 ? String.format(Locale.ROOT, "%d h %02d min", duration.toHours(),
                duration.toMinutesPart()) : String.format(Locale.ROOT, "%d min %02d s", duration.toMinutes(),
                duration.toSecondsPart());
    }
}
