package io.queuegate.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.queuegate.app.QueueGateApplication;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;
import io.queuegate.token.WaitTokenCodec;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

/**
 * Throughput and latency of the gateway's paths side by side, measured with {@code wrk} on
 * loopback in interleaved rounds (every path once per round, then the next round), medians
 * reported: the backend directly, a plain route, the same route with Spring Cloud Gateway's
 * {@code RequestRateLimiter} (Redis, never denying), and QueueGate's admitted, waiting and join
 * paths. Also the Redis commands per request, from {@code INFO commandstats} and from the
 * gateway's Lettuce client. JFR profiles of the gateway paths are taken in extra, unmeasured runs.
 *
 * <p>Run by {@code bench/run throughput}; writes {@code bench/results/throughput.md},
 * {@code bench/results/throughput-profile.md} and wrk's raw outputs under {@code bench/results/raw/}.
 */
public final class Throughput {

    private static final int THREADS = 2;
    private static String LOAD_AT_START = "?";
    private static final int USERS = 1000;
    private static final String ADMITTED = "a";
    private static final String WAITING = "w";
    private static final String JOINING = "j";

    /** One measured path: what wrk hits and with which script. */
    record Target(String name, String label, String url, String script, Function<String, List<String>> scriptArgs) {
    }

    /** One wrk run's figures. */
    record Run(double requestsPerSecond, long requests, double p50Ms, double p99Ms, long non2xx, long socketErrors,
            long redisCalls, long redisScriptCalls, long clientCommands, double redisCpuSeconds) {
    }

    private final Path rawDir;
    private final Path workDir;
    private final int connections;
    private final RedisProcess redis;
    private final RedisCpu redisCpu;
    private int runCounter;

    private Throughput(Path rawDir, Path workDir, int connections, RedisProcess redis) {
        this.rawDir = rawDir;
        this.workDir = workDir;
        this.connections = connections;
        this.redis = redis;
        this.redisCpu = new RedisCpu(redis.commands());
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int connections = args.length > 2 ? Integer.parseInt(args[2]) : 64;
        String command = args.length > 3 ? args[3] : "bench/run throughput";
        int warmupSeconds = Math.max(3, seconds / 2);
        LOAD_AT_START = Machine.loadAverage();
        Path results = Path.of("bench/results");
        Path rawDir = results.resolve("raw");
        Path workDir = Path.of("bench/target/throughput");
        Files.createDirectories(rawDir);
        Files.createDirectories(workDir);

        try (RedisProcess redisProcess = RedisProcess.start()) {
            LoopResources backendLoops = LoopResources.create("backend", 2, true);
            DisposableServer backend = startBackend(backendLoops);
            String backendUrl = "http://127.0.0.1:" + backend.port();
            ConfigurableApplicationContext gateway = startGateway(redisProcess, backendUrl);
            int barePort = freePort();
            Process bare = startBare(barePort, backendUrl, redisProcess.port());
            try {
                int port = ((WebServerApplicationContext) gateway).getWebServer().getPort();
                String base = "http://127.0.0.1:" + port;
                Path admittedFile = workDir.resolve("admitted.tokens");
                Path waitingFile = workDir.resolve("waiting.tokens");
                prepareUsers(base, ADMITTED, "adm", admittedFile, 200);
                prepareUsers(base, WAITING, "wait", waitingFile, 429);

                String lua = "bench/wrk/";
                List<Target> targets = List.of(
                        new Target("backend", "backend directly", backendUrl + "/api/products/1",
                                lua + "headers.lua", prefix -> List.of()),
                        new Target("bare", "bare Spring Cloud Gateway (its own JVM, no QueueGate)",
                                "http://127.0.0.1:" + barePort + "/plain/api/products/1", lua + "headers.lua",
                                prefix -> List.of()),
                        new Target("plain", "QueueGate's plain route (no queue block)", base + "/plain/api/products/1",
                                lua + "headers.lua", prefix -> List.of()),
                        new Target("ratelimiter", "RequestRateLimiter (Redis, never denies)",
                                base + "/limited/api/products/1", lua + "headers.lua", prefix -> List.of()),
                        new Target("admitted", "QueueGate admitted (active token)", base + "/api/products/" + ADMITTED,
                                lua + "tokens.lua", prefix -> List.of(admittedFile.toString())),
                        new Target("waiting", "QueueGate waiting (wait token, polling)",
                                base + "/api/products/" + WAITING, lua + "tokens.lua",
                                prefix -> List.of(waitingFile.toString())),
                        new Target("join", "QueueGate join (new user, no token)", base + "/api/products/" + JOINING,
                                lua + "join.lua", prefix -> List.of(prefix)));
                sanityCheck(base, backendUrl, admittedFile, waitingFile);

                Throughput bench = new Throughput(rawDir, workDir, connections, redisProcess);
                if (Boolean.getBoolean("bench.hold")) {
                    // For poking at the running set-up by hand: print the URLs and wait.
                    targets.forEach(t -> System.out.println("hold " + t.name() + " " + t.url() + " " + t.script()
                            + " " + t.scriptArgs().apply("manual")));
                    Thread.sleep(Long.getLong("bench.hold.millis", 600_000));
                    return;
                }
                for (Target target : targets) {
                    System.out.println("warm-up " + target.name());
                    bench.wrk(target, warmupSeconds, "warmup");
                }
                Map<String, List<Run>> runs = new LinkedHashMap<>();
                targets.forEach(t -> runs.put(t.name(), new ArrayList<>()));
                for (int round = 1; round <= rounds; round++) {
                    for (Target target : targets) {
                        Run run = bench.measure(target, seconds, "r" + round);
                        runs.get(target.name()).add(run);
                        System.out.printf("round %d %-11s %9.0f req/s p50 %6.2f ms p99 %6.2f ms non-2xx %d"
                                + " redis/req %.2f (client %.2f)%n", round, target.name(), run.requestsPerSecond(),
                                run.p50Ms(), run.p99Ms(), run.non2xx(), perRequest(run.redisCalls(), run.requests()),
                                perRequest(run.clientCommands(), run.requests()));
                    }
                }
                Map<String, String> profiles = new LinkedHashMap<>();
                for (Target target : targets) {
                    if (List.of("plain", "admitted", "waiting", "join").contains(target.name())) {
                        System.out.println("profile " + target.name());
                        profiles.put(target.label(), bench.profile(target, seconds));
                    }
                }
                writeProfiles(results.resolve("throughput-profile.md"), profiles, seconds);
                write(results.resolve("throughput.md"), targets, runs, rounds, seconds, warmupSeconds, connections,
                        command, redisProcess);
            }
            finally {
                bare.destroy();
                bare.waitFor();
                gateway.close();
                backend.disposeNow();
                backendLoops.disposeLater().block();
            }
        }
    }

    /** A backend that costs next to nothing: any GET gets a small JSON product. */
    static DisposableServer startBackend(LoopResources loops) {
        return HttpServer.create().host("127.0.0.1").port(0).runOn(loops)
                .handle((request, response) -> {
                    String path = request.path();
                    String id = path.substring(path.lastIndexOf('/') + 1);
                    byte[] body = ("{\"id\":\"" + id + "\",\"name\":\"Limited sneakers\",\"price\":14900,\"stock\":99}")
                            .getBytes(StandardCharsets.UTF_8);
                    return response.header(HttpHeaderNames.CONTENT_TYPE, "application/json")
                            .header(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(body.length))
                            .sendByteArray(Mono.just(body));
                })
                .bindNow();
    }

    /** One gateway with every route: the product route (queue block), a plain and a rate-limited route. */
    private static ConfigurableApplicationContext startGateway(RedisProcess redis, String backendUrl) {
        Map<String, Object> properties = GatewayInstance.defaults(redis, backendUrl, Map.of(
                "max-active", "1000000",
                "session-ttl", "1h"));
        properties.put("queuegate.products." + WAITING + ".max-active", "1");
        properties.put("queuegate.products." + JOINING + ".max-active", "1");
        properties.put("queuegate.joins.max-per-caller", "1000000");
        // wrk is one address: the per-address limit (for a carrier NAT's crowd) would stop the join path.
        properties.put("queuegate.joins.max-per-address", "100000000");
        String plain = "spring.cloud.gateway.server.webflux.routes[1].";
        properties.put(plain + "id", "plain");
        properties.put(plain + "uri", backendUrl);
        properties.put(plain + "predicates[0]", "Path=/plain/**");
        String limited = "spring.cloud.gateway.server.webflux.routes[2].";
        properties.put(limited + "id", "limited");
        properties.put(limited + "uri", backendUrl);
        properties.put(limited + "predicates[0]", "Path=/limited/**");
        properties.put(limited + "filters[0].name", "RequestRateLimiter");
        properties.put(limited + "filters[0].args.redis-rate-limiter.replenishRate", "100000000");
        properties.put(limited + "filters[0].args.redis-rate-limiter.burstCapacity", "100000000");
        properties.put(limited + "filters[0].args.redis-rate-limiter.requestedTokens", "1");
        properties.put(limited + "filters[0].args.key-resolver", "#{@benchKeyResolver}");
        String[] args = properties.entrySet().stream()
                .map(entry -> "--" + entry.getKey() + "=" + entry.getValue())
                .toArray(String[]::new);
        return new SpringApplicationBuilder(QueueGateApplication.class, ThroughputConfig.class).run(args);
    }

    /**
     * Joins USERS users of {@code product} by one request each and writes "user token" lines, the
     * tokens as the gateway handed them out (a waiting one carries its holder's ticket).
     */
    private static void prepareUsers(String base, String product, String prefix, Path file, int expectedAfterFirst)
            throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        StringBuilder lines = new StringBuilder();
        Map<Integer, Integer> statuses = new HashMap<>();
        for (int i = 0; i < USERS; i++) {
            String user = prefix + i;
            HttpResponse<Void> response = http.send(HttpRequest.newBuilder(URI.create(base + "/api/products/" + product))
                    .header("X-User-Id", user).header("Accept", "application/json").build(),
                    HttpResponse.BodyHandlers.discarding());
            if (i > 0) {
                statuses.merge(response.statusCode(), 1, Integer::sum);
            }
            // On the waiting product the first user holds the only place: not a waiter.
            if (i > 0 || expectedAfterFirst == 200) {
                String token = response.headers().firstValue("Queue-Token")
                        .orElseThrow(() -> new IllegalStateException("no token for " + user));
                lines.append(user).append(' ').append(token).append('\n');
            }
        }
        if (statuses.getOrDefault(expectedAfterFirst, 0) != USERS - 1) {
            throw new IllegalStateException("joining product " + product + " answered " + statuses);
        }
        Files.writeString(file, lines);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /**
     * The bare gateway (module bench/bare-gateway), in a JVM of its own with its own classpath
     * (system property {@code bench.bare.classpath}, set by bench/run): no QueueGate on it.
     */
    private static Process startBare(int port, String backendUrl, int redisPort) throws Exception {
        String classpath = System.getProperty("bench.bare.classpath");
        if (classpath == null) {
            throw new IllegalStateException("bench.bare.classpath is not set: run the benchmark with bench/run");
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-cp", classpath, "io.queuegate.bench.bare.BareGatewayApplication",
                "--server.port=" + port, "--bench.backend-url=" + backendUrl, "--spring.data.redis.port=" + redisPort)
                .redirectErrorStream(true).redirectOutput(Path.of("bench/target/throughput/bare-gateway.log").toFile())
                .start();
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/plain/api/products/1"))
                        .build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return process;
                }
            }
            catch (IOException notYet) {
                Thread.sleep(200);
            }
            if (!process.isAlive()) {
                break;
            }
        }
        process.destroyForcibly();
        throw new IllegalStateException("the bare gateway did not start: see bench/target/throughput/bare-gateway.log");
    }

    /** Each path answers what it should before any load. */
    private static void sanityCheck(String base, String backendUrl, Path admitted, Path waiting) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String[] a = Files.readAllLines(admitted).get(1).split(" ");
        String[] w = Files.readAllLines(waiting).get(1).split(" ");
        Map<String, Integer> expected = new LinkedHashMap<>();
        List<HttpRequest> requests = List.of(
                HttpRequest.newBuilder(URI.create(backendUrl + "/api/products/1")).build(),
                HttpRequest.newBuilder(URI.create(base + "/plain/api/products/1")).build(),
                HttpRequest.newBuilder(URI.create(base + "/limited/api/products/1")).build(),
                HttpRequest.newBuilder(URI.create(base + "/api/products/" + ADMITTED))
                        .header("X-User-Id", a[0]).header("Queue-Token", a[1]).build(),
                HttpRequest.newBuilder(URI.create(base + "/api/products/" + WAITING))
                        .header("X-User-Id", w[0]).header("Queue-Token", w[1]).build(),
                HttpRequest.newBuilder(URI.create(base + "/api/products/" + JOINING))
                        .header("X-User-Id", "sanity-joiner").build());
        int[] wanted = { 200, 200, 200, 200, 429, 200 };
        for (int i = 0; i < requests.size(); i++) {
            HttpResponse<String> response = http.send(requests.get(i), HttpResponse.BodyHandlers.ofString());
            System.out.println("sanity " + requests.get(i).uri() + " -> " + response.statusCode() + " "
                    + response.headers().firstValue("X-RateLimit-Remaining").map(r -> "(rate limit remaining " + r + ") ")
                            .orElse("")
                    + abbreviate(response.body()));
            if (response.statusCode() != wanted[i]) {
                throw new IllegalStateException(requests.get(i).uri() + " answered " + response.statusCode());
            }
        }
        // The first joiner of the join product holds its only place; everyone after waits.
        HttpResponse<String> second = http.send(HttpRequest.newBuilder(URI.create(base + "/api/products/" + JOINING))
                .header("X-User-Id", "sanity-joiner-2").build(), HttpResponse.BodyHandlers.ofString());
        if (second.statusCode() != 429) {
            throw new IllegalStateException("a second joiner got " + second.statusCode());
        }
    }

    private static String abbreviate(String body) {
        return body.length() > 100 ? body.substring(0, 100) + "..." : body;
    }

    private Run measure(Target target, int seconds, String tag) {
        Map<String, Long> before = commandStats();
        long clientBefore = ThroughputConfig.REDIS_COMMANDS.sum();
        double cpuBefore = redisCpu.seconds();
        String output = wrk(target, seconds, tag);
        double cpuUsed = redisCpu.seconds() - cpuBefore;
        long client = ThroughputConfig.REDIS_COMMANDS.sum() - clientBefore;
        Map<String, Long> after = commandStats();
        long calls = 0;
        long scripts = 0;
        for (Map.Entry<String, Long> entry : after.entrySet()) {
            long delta = entry.getValue() - before.getOrDefault(entry.getKey(), 0L);
            if (!entry.getKey().equals("info")) {
                calls += delta;
            }
            if (entry.getKey().equals("evalsha") || entry.getKey().equals("eval")) {
                scripts += delta;
            }
        }
        Run run = parse(output, calls, scripts, client);
        return new Run(run.requestsPerSecond(), run.requests(), run.p50Ms(), run.p99Ms(), run.non2xx(),
                run.socketErrors(), calls, scripts, client, cpuUsed);
    }

    private Map<String, Long> commandStats() {
        Map<String, Long> stats = new HashMap<>();
        Matcher m = Pattern.compile("cmdstat_([^:]+):calls=(\\d+)").matcher(redis.commands().info("commandstats"));
        while (m.find()) {
            stats.put(m.group(1), Long.parseLong(m.group(2)));
        }
        return stats;
    }

    /** Runs wrk once; keeps its output under raw/ (except warm-ups) and returns it. */
    private String wrk(Target target, int seconds, String tag) {
        String prefix = target.name() + "-" + tag + "-" + (++runCounter);
        List<String> command = new ArrayList<>(List.of("wrk", "-t" + THREADS, "-c" + connections, "-d" + seconds + "s",
                "--latency", "-s", target.script(), target.url()));
        List<String> scriptArgs = target.scriptArgs().apply(prefix);
        if (!scriptArgs.isEmpty()) {
            command.add("--");
            command.addAll(scriptArgs);
        }
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int exit = process.waitFor();
            if (exit != 0) {
                throw new IllegalStateException("wrk failed (" + exit + "): " + output);
            }
            if (!tag.equals("warmup") && !tag.equals("profile")) {
                Files.writeString(rawDir.resolve("throughput-" + tag + "-" + target.name() + ".txt"),
                        "$ " + String.join(" ", command) + "\n" + output);
            }
            return output;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    static Run parse(String output, long redisCalls, long redisScripts, long client) {
        double rps = Double.parseDouble(find(output, "Requests/sec:\\s+([\\d.]+)", "0"));
        long requests = Long.parseLong(find(output, "(\\d+) requests in", "0"));
        double p50 = millis(find(output, "\\s50%\\s+([\\d.]+\\w+)", "0ms"));
        double p99 = millis(find(output, "\\s99%\\s+([\\d.]+\\w+)", "0ms"));
        long non2xx = Long.parseLong(find(output, "Non-2xx or 3xx responses: (\\d+)", "0"));
        long errors = 0;
        Matcher m = Pattern.compile("Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)")
                .matcher(output);
        if (m.find()) {
            for (int i = 1; i <= 4; i++) {
                errors += Long.parseLong(m.group(i));
            }
        }
        return new Run(rps, requests, p50, p99, non2xx, errors, redisCalls, redisScripts, client, 0);
    }

    private static String find(String text, String regex, String otherwise) {
        Matcher m = Pattern.compile(regex).matcher(text);
        return m.find() ? m.group(1) : otherwise;
    }

    private static double millis(String value) {
        Matcher m = Pattern.compile("([\\d.]+)(us|ms|s|m)").matcher(value);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a wrk duration: " + value);
        }
        double number = Double.parseDouble(m.group(1));
        return switch (m.group(2)) {
            case "us" -> number / 1000;
            case "ms" -> number;
            case "s" -> number * 1000;
            default -> number * 60_000;
        };
    }

    // ---------------------------------------------------------------- profiles

    /** One extra wrk run under a JFR recording (profile settings); summarised as Markdown. */
    private String profile(Target target, int seconds) throws Exception {
        Path file = workDir.resolve("throughput-" + target.name() + ".jfr");
        try (Recording recording = new Recording(Configuration.getConfiguration("profile"))) {
            recording.start();
            wrk(target, seconds, "profile");
            recording.stop();
            recording.dump(file);
        }
        return summarise(file);
    }

    static String summarise(Path file) throws IOException {
        Map<String, Integer> self = new HashMap<>();
        Map<String, Integer> inclusive = new HashMap<>();
        Map<String, Integer> byThread = new HashMap<>();
        Map<String, Long> allocation = new HashMap<>();
        int samples = 0;
        long gcPauseNanos = 0;
        int gcs = 0;
        for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
            String type = event.getEventType().getName();
            if (type.equals("jdk.ExecutionSample")) {
                String thread = threadGroup(event.getThread("sampledThread") == null ? "?"
                        : event.getThread("sampledThread").getJavaName());
                byThread.merge(thread, 1, Integer::sum);
                if (!thread.equals("gateway event loop")) {
                    continue;
                }
                RecordedStackTrace stack = event.getStackTrace();
                if (stack == null || stack.getFrames().isEmpty()) {
                    continue;
                }
                samples++;
                List<RecordedFrame> frames = stack.getFrames();
                self.merge(method(frames.get(0)), 1, Integer::sum);
                frames.stream().map(Throughput::method).distinct().forEach(m -> inclusive.merge(m, 1, Integer::sum));
            }
            else if (type.equals("jdk.ObjectAllocationSample")) {
                String thread = event.getThread("eventThread") == null ? "?"
                        : threadGroup(event.getThread("eventThread").getJavaName());
                if (thread.equals("gateway event loop") && event.getStackTrace() != null) {
                    String site = event.getStackTrace().getFrames().stream().map(Throughput::method)
                            .filter(m -> !m.startsWith("java.") && !m.startsWith("jdk.") && !m.startsWith("sun."))
                            .findFirst().orElse("?");
                    allocation.merge(site, event.getLong("weight"), Long::sum);
                }
            }
            else if (type.equals("jdk.GarbageCollection")) {
                gcs++;
                gcPauseNanos += event.getDuration("sumOfPauses").toNanos();
            }
        }
        int total = samples;
        StringBuilder md = new StringBuilder();
        md.append("CPU samples by thread: ").append(byThread.entrySet().stream()
                        .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                        .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", ")))
                .append("; GCs ").append(gcs).append(", pauses ").append(gcPauseNanos / 1_000_000).append(" ms.\n\n");
        md.append("Hottest methods on the gateway's event loops (self time, ").append(total).append(" samples):\n\n")
                .append("| self % | method |\n|---|---|\n");
        top(self, 15).forEach(e -> md.append(String.format("| %.1f | `%s` |%n", 100.0 * e.getValue() / total,
                e.getKey())));
        md.append("\nTime spent under (inclusive), selected frames:\n\n| incl. % | method |\n|---|---|\n");
        Map<String, Integer> selected = inclusive.entrySet().stream()
                .filter(e -> interesting(e.getKey()))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        top(selected, 30).forEach(e -> md.append(String.format("| %.1f | `%s` |%n", 100.0 * e.getValue() / total,
                e.getKey())));
        long allocated = allocation.values().stream().mapToLong(Long::longValue).sum();
        md.append("\nAllocation on the gateway's event loops by first non-JDK frame (sampled weight):\n\n")
                .append("| alloc % | site |\n|---|---|\n");
        allocation.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(12)
                .forEach(e -> md.append(String.format("| %.1f | `%s` |%n", 100.0 * e.getValue() / allocated,
                        e.getKey())));
        return md.toString();
    }

    private static boolean interesting(String method) {
        return method.startsWith("io.queuegate.")
                || method.startsWith("io.jsonwebtoken.") || method.startsWith("com.nimbusds.")
                || method.startsWith("javax.crypto.") || method.startsWith("com.fasterxml.")
                || method.startsWith("tools.jackson.")
                || method.startsWith("io.lettuce.core.") && !method.contains("EventLoop")
                || method.startsWith("org.springframework.data.redis.")
                || method.startsWith("org.springframework.cloud.gateway.filter.")
                || method.startsWith("org.springframework.cloud.gateway.handler.")
                || method.startsWith("io.github.resilience4j.")
                || method.startsWith("io.micrometer.")
                || method.startsWith("org.springframework.web.reactive.result.")
                || method.startsWith("org.springframework.http.codec.")
                || method.startsWith("reactor.netty.http.client.")
                || method.startsWith("java.util.regex.")
                || method.contains("Base64") || method.contains("Mac.") || method.contains("HmacCore");
    }

    private static List<Map.Entry<String, Integer>> top(Map<String, Integer> counts, int limit) {
        return counts.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed()
                        .thenComparing(Map.Entry.comparingByKey()))
                .limit(limit).toList();
    }

    private static String method(RecordedFrame frame) {
        return frame.getMethod().getType().getName() + "." + frame.getMethod().getName();
    }

    private static String threadGroup(String name) {
        if (name == null) {
            return "?";
        }
        if (name.startsWith("backend")) {
            return "backend";
        }
        if (name.startsWith("reactor-http-nio") || name.startsWith("reactor-http-epoll")) {
            return "gateway event loop";
        }
        if (name.startsWith("lettuce")) {
            return "lettuce";
        }
        if (name.startsWith("parallel") || name.startsWith("boundedElastic")) {
            return "reactor schedulers";
        }
        if (name.startsWith("G1") || name.startsWith("GC")) {
            return "gc";
        }
        return "other";
    }

    private static void writeProfiles(Path out, Map<String, String> profiles, int seconds) throws IOException {
        StringBuilder md = new StringBuilder("# Throughput profiles\n\nWritten by `bench/run throughput` on ")
                .append(Instant.now()).append(". One extra ").append(seconds).append(" s wrk run per path under ")
                .append("a JFR recording (the JDK's `profile` settings, started in-process with ")
                .append("`jdk.jfr.Recording`); these runs are not part of the measured figures. The JFR files are ")
                .append("left in `bench/target/throughput/`.\n\n");
        profiles.forEach((label, summary) -> md.append("## ").append(label).append("\n\n").append(summary)
                .append("\n"));
        Files.writeString(out, md.toString());
        System.out.println("wrote " + out);
    }

    // ---------------------------------------------------------------- report

    private static double perRequest(long count, long requests) {
        return requests == 0 ? 0 : (double) count / requests;
    }

    private static double median(List<Run> runs, java.util.function.ToDoubleFunction<Run> field) {
        double[] values = runs.stream().mapToDouble(field).sorted().toArray();
        int n = values.length;
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }

    private static void write(Path out, List<Target> targets, Map<String, List<Run>> runs, int rounds, int seconds,
            int warmupSeconds, int connections, String command, RedisProcess redis) throws IOException {
        List<Run> plain = runs.get("plain");
        double plainRps = median(plain, Run::requestsPerSecond);
        double plainP99 = median(plain, Run::p99Ms);
        StringBuilder md = new StringBuilder("# Throughput\n\n");
        String redisVersion = find(redis.commands().info("server"), "redis_version:(\\S+)", "?");
        md.append("Written by `").append(command).append("` on ")
                .append(Instant.now().atOffset(ZoneOffset.UTC).toLocalDate()).append(" (")
                .append(Instant.now()).append("), commit `").append(Machine.git("rev-parse", "--short", "HEAD"))
                .append("`").append(Machine.uncommitted()).append(".\n\n")
                .append("Machine: ").append(Machine.cpu()).append(", ").append(Runtime.getRuntime().availableProcessors())
                .append(" cores, ").append(Machine.memory()).append(", ").append(System.getProperty("os.name")).append(' ')
                .append(System.getProperty("os.version")).append(", Java ").append(System.getProperty("java.version"))
                .append(" (").append(ManagementFactory.getRuntimeMXBean().getVmName()).append("), Redis ")
                .append(redisVersion).append(", ").append(Machine.wrkVersion()).append(". Everything on loopback and on the ")
                .append("same cores: wrk, the gateway (one JVM, with the backend in it on its own two event-loop ")
                .append("threads), the bare gateway (a JVM of its own) and Redis. Load average (1, 5, 15 min) at the start: ").append(LOAD_AT_START)
                .append(", at the end: ").append(Machine.loadAverage()).append(" (a load above the core count means ")
                .append("other work shared the machine).\n\n")
                .append("Each run: `wrk -t").append(THREADS).append(" -c").append(connections).append(" -d")
                .append(seconds).append("s --latency`; a ").append(warmupSeconds)
                .append(" s warm-up per path first, then ").append(rounds)
                .append(" interleaved rounds (every path once per round, in the order below); medians of the rounds. ")
                .append("Redis commands per request: the growth of `INFO commandstats` (all commands but INFO, ")
                .append("which counts the commands scripts run inside Redis too) and of the gateway's Lettuce ")
                .append("client's completed commands (client round trips), over all rounds, divided by the ")
                .append("requests wrk reports; both include the gateway's background work (the promotion ")
                .append("scheduler every 5 s), a few calls a second.\n\n")
                .append("Redis CPU per request: the growth of Redis's main-thread CPU (`INFO cpu`, user + sys) over ")
                .append("all rounds of the path, divided by its requests.\n\n")
                .append("Paths: the backend is a Reactor Netty server answering any GET with a 66-byte JSON. The bare ")
                .append("Spring Cloud Gateway (module `bench/bare-gateway`) has the runnable gateway's starters and ")
                .append("settings (actuator, Prometheus, Spring Security, the Redis client) without QueueGate, and ")
                .append("one route to the backend; it runs in a JVM of its own. The ")
                .append("plain and rate-limited routes are gateway routes without a queue block (`/plain/**`, ")
                .append("`/limited/**`), the latter with `RequestRateLimiter` + `RedisRateLimiter` (replenishRate = ")
                .append("burstCapacity = 10^8, a constant key). Admitted: ").append(USERS).append(" users of ")
                .append("product `a` (max-active 10^6), each made active by one request beforehand, cycled with ")
                .append("their tokens. Waiting: ").append(USERS).append(" users of product `w` (max-active 1) ")
                .append("holding the wait tokens its answers gave them (with their tickets: answered from the ")
                .append("gateway's view of the line), polling (429). Join: a new user id per request, no token, ")
                .append("product `j` (max-active 1), so each joins the back of the line (429 with a token).\n\n");
        md.append("| path | req/s (median) | spread (min–max) | p50 ms | p99 ms | req/s ÷ plain | p99 ÷ plain | "
                + "Redis CPU µs/req | Redis cmds/req (commandstats) | scripts/req | round trips/req (client) | "
                + "non-2xx |\n")
                .append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Target target : targets) {
            List<Run> list = runs.get(target.name());
            long requests = list.stream().mapToLong(Run::requests).sum();
            long non2xx = list.stream().mapToLong(Run::non2xx).sum();
            double rps = median(list, Run::requestsPerSecond);
            double p99 = median(list, Run::p99Ms);
            double cpu = list.stream().mapToDouble(Run::redisCpuSeconds).sum() * 1e6 / Math.max(1, requests);
            md.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f–%.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | "
                            + "%.2f | %.2f | %s |%n",
                    target.label(), rps, list.stream().mapToDouble(Run::requestsPerSecond).min().orElse(0),
                    list.stream().mapToDouble(Run::requestsPerSecond).max().orElse(0), median(list, Run::p50Ms), p99,
                    rps / plainRps, p99 / plainP99, cpu,
                    perRequest(list.stream().mapToLong(Run::redisCalls).sum(), requests),
                    perRequest(list.stream().mapToLong(Run::redisScriptCalls).sum(), requests),
                    perRequest(list.stream().mapToLong(Run::clientCommands).sum(), requests),
                    non2xx == requests ? "all" : Long.toString(non2xx)));
        }
        md.append("\nPer round (req/s, p99 ms):\n\n| path |");
        for (int r = 1; r <= rounds; r++) {
            md.append(" round ").append(r).append(" |");
        }
        md.append("\n|---|").append("---|".repeat(rounds)).append('\n');
        for (Target target : targets) {
            md.append("| ").append(target.name()).append(" |");
            for (Run run : runs.get(target.name())) {
                md.append(String.format(" %.0f, %.2f |", run.requestsPerSecond(), run.p99Ms()));
            }
            md.append('\n');
        }
        double bareRps = median(runs.get("bare"), Run::requestsPerSecond);
        double admitted = median(runs.get("admitted"), Run::requestsPerSecond) / plainRps;
        double admittedP99 = median(runs.get("admitted"), Run::p99Ms) / plainP99;
        double waiting = median(runs.get("waiting"), Run::requestsPerSecond) / plainRps;
        double waitingP99 = median(runs.get("waiting"), Run::p99Ms) / plainP99;
        double join = median(runs.get("join"), Run::requestsPerSecond) / plainRps;
        md.append("\nTargets (medians of the rounds; ratios within each round are in the raw outputs):\n\n");
        target(md, "QueueGate's plain route ≥ 0.97 × bare Spring Cloud Gateway", plainRps / bareRps >= 0.97,
                String.format(Locale.ROOT, "%.2f", plainRps / bareRps));
        target(md, "waiting ≥ 1.5 × plain throughput", waiting >= 1.5, String.format(Locale.ROOT, "%.2f", waiting));
        target(md, "waiting p99 ≤ plain p99", waitingP99 <= 1.0, String.format(Locale.ROOT, "%.2f", waitingP99));
        target(md, "join ≥ 1.0 × plain throughput", join >= 1.0, String.format(Locale.ROOT, "%.2f", join));
        target(md, "admitted ≥ 0.95 × plain throughput", admitted >= 0.95, String.format(Locale.ROOT, "%.2f", admitted));
        target(md, "admitted p99 ≤ 1.1 × plain p99", admittedP99 <= 1.1, String.format(Locale.ROOT, "%.2f", admittedP99));
        md.append("\nRaw wrk outputs: `bench/results/raw/throughput-r<round>-<path>.txt`; profiles: ")
                .append("`bench/results/throughput-profile.md`.\n");
        Files.writeString(out, md.toString());
        System.out.println(md);
        System.out.println("wrote " + out);
    }

    private static void target(StringBuilder md, String name, boolean met, String value) {
        md.append("- ").append(name).append(": ").append(value).append(" — ").append(met ? "met" : "**missed**")
                .append('\n');
    }
}
