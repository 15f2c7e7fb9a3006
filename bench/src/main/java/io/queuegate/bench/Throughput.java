package io.queuegate.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.jsonwebtoken.Jwts;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

/**
 * Throughput and latency of the gateway's paths side by side, measured with {@code wrk} on
 * loopback in interleaved rounds (every path once per round, then the next round), medians
 * reported. Every gateway runs in a JVM of its own with the same flags ({@link GatewayProcess}):
 * two baselines, Spring Cloud Gateway with only the gateway and reactive Redis starters ("bare",
 * what a shop runs without a waiting room; with its own {@code RequestRateLimiter} on Redis) and
 * the runnable gateway's framework without QueueGate (actuator, Prometheus, Resilience4j, Spring
 * Security: "framework"), each also validating a bearer JWT where the path says so; and the
 * runnable gateway with QueueGate: a route without a queue, and the admitted, waiting and join
 * paths of a queued one. Also the Redis commands and CPU per request. JFR profiles of QueueGate's
 * paths are taken in extra, unmeasured runs.
 *
 * <p>A run whose baseline rounds spread more than {@link Rounds#MAX_BASELINE_SPREAD} is not written:
 * the machine was not quiet enough to tell anything apart.
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
    private static final String READY = "/plain/api/products/1";

    /** One measured path: what wrk hits, with which script, on which gateway (null: the backend itself). */
    record Target(String name, String label, GatewayProcess gateway, String url, String script,
            Function<String, List<String>> scriptArgs) {
    }

    /** One wrk run's figures. */
    record Run(double requestsPerSecond, long requests, double p50Ms, double p99Ms, long non2xx, long socketErrors,
            long redisCalls, long redisScriptCalls, long clientCommands, double redisCpuSeconds,
            double gatewayCpuSeconds) {

        /** The gateway JVM's CPU per request, µs (NaN for the backend alone). */
        double gatewayMicros() {
            return requests == 0 ? Double.NaN : gatewayCpuSeconds * 1e6 / requests;
        }
    }

    private final Path rawDir;
    private final Path workDir;
    private final int connections;
    private final RedisProcess redis;
    private final RedisCpu redisCpu;
    private final HttpClient http = HttpClient.newHttpClient();
    private int runCounter;

    Throughput(Path rawDir, Path workDir, int connections, RedisProcess redis) {
        this.rawDir = rawDir;
        this.workDir = workDir;
        this.connections = connections;
        this.redis = redis;
        this.redisCpu = new RedisCpu(redis.commands());
    }

    public static void main(String[] args) {
        exit(() -> run(args));
    }

    /**
     * Runs a throughput bench and exits: 0 when it wrote its figures, 3 when the machine was not
     * quiet enough to write them, 1 when it failed (and so stopped the gateways it started).
     */
    static void exit(java.util.concurrent.Callable<Boolean> bench) {
        boolean written = false;
        try {
            written = bench.call();
        }
        catch (Throwable failed) {
            failed.printStackTrace();
            System.exit(1);
        }
        System.exit(written ? 0 : 3);
    }

    /** Measures; whether the figures were written (false: the machine was not quiet enough). */
    private static boolean run(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int connections = args.length > 2 ? Integer.parseInt(args[2]) : 64;
        String command = args.length > 3 ? args[3] : "bench/run throughput";
        int warmupSeconds = warmupSeconds(seconds);
        LOAD_AT_START = Machine.loadAverage();
        Path results = Path.of("bench/results");
        Path rawDir = results.resolve("raw");
        Path workDir = Path.of("bench/target/throughput");
        Files.createDirectories(rawDir);
        Files.createDirectories(workDir);

        List<GatewayProcess> gateways = new ArrayList<>();
        try (RedisProcess redisProcess = RedisProcess.start()) {
            LoopResources backendLoops = LoopResources.create("backend", 2, true);
            DisposableServer backend = startBackend(backendLoops);
            String backendUrl = "http://127.0.0.1:" + backend.port();
            try {
                Jwt jwt = Jwt.make(workDir);
                Map<String, Object> common = Map.of("bench.backend-url", backendUrl,
                        "spring.data.redis.port", redisProcess.port());
                GatewayProcess bare = start(gateways, "bare", "bench.bare.classpath",
                        "io.queuegate.bench.bare.BareGatewayApplication", common, workDir);
                GatewayProcess framework = start(gateways, "framework", "bench.framework.classpath",
                        "io.queuegate.bench.framework.FrameworkGatewayApplication", common, workDir);
                GatewayProcess frameworkJwt = start(gateways, "framework-jwt", "bench.framework.classpath",
                        "io.queuegate.bench.framework.FrameworkGatewayApplication", jwt.validating(common), workDir);
                GatewayProcess queuegate = start(gateways, "queuegate", "java.class.path",
                        ThroughputConfig.class.getName(), queueGate(redisProcess, backendUrl), workDir);
                Map<String, Object> queueGateJwt = jwt.validating(queueGate(redisProcess, backendUrl));
                queueGateJwt.put("queuegate.identity.source", "principal");
                GatewayProcess queuegateJwt = start(gateways, "queuegate-jwt", "java.class.path",
                        ThroughputConfig.class.getName(), queueGateJwt, workDir);

                Path admittedFile = workDir.resolve("admitted.tokens");
                Path waitingFile = workDir.resolve("waiting.tokens");
                prepareUsers(queuegate, ADMITTED, "adm", admittedFile, 200);
                prepareUsers(queuegate, WAITING, "wait", waitingFile, 429);
                String lua = "bench/wrk/";
                List<String> none = List.of();
                List<String> token = List.of(jwt.file().toString());
                List<Target> targets = List.of(
                        new Target("backend", "backend directly", null, backendUrl + "/api/products/1",
                                lua + "headers.lua", prefix -> none),
                        new Target("bare", "bare Spring Cloud Gateway (gateway + reactive Redis starters)", bare,
                                bare.url("/plain/api/products/1"), lua + "headers.lua", prefix -> none),
                        new Target("bare-shaped", "bare SCG, the admitted request's shape (a path-template route, "
                                + "the same headers and token)", bare, bare.url("/api/products/" + ADMITTED),
                                lua + "tokens.lua", prefix -> List.of(admittedFile.toString())),
                        new Target("ratelimiter", "bare SCG, `RequestRateLimiter` on Redis (never denies)", bare,
                                bare.url("/limited/api/products/1"), lua + "headers.lua", prefix -> none),
                        new Target("framework", "framework: the runnable gateway's starters, no QueueGate", framework,
                                framework.url("/plain/api/products/1"), lua + "headers.lua", prefix -> none),
                        new Target("framework-jwt", "framework validating a bearer JWT", frameworkJwt,
                                frameworkJwt.url("/plain/api/products/1"), lua + "bearer.lua", prefix -> token),
                        new Target("plain", "QueueGate, route without a queue", queuegate,
                                queuegate.url("/plain/api/products/1"), lua + "headers.lua", prefix -> none),
                        new Target("plain-jwt", "QueueGate, route without a queue, validating a bearer JWT",
                                queuegateJwt, queuegateJwt.url("/plain/api/products/1"), lua + "bearer.lua",
                                prefix -> token),
                        new Target("admitted", "QueueGate admitted (active token)", queuegate,
                                queuegate.url("/api/products/" + ADMITTED), lua + "tokens.lua",
                                prefix -> List.of(admittedFile.toString())),
                        new Target("waiting", "QueueGate waiting (429 from memory)", queuegate,
                                queuegate.url("/api/products/" + WAITING), lua + "tokens.lua",
                                prefix -> List.of(waitingFile.toString())),
                        new Target("join", "QueueGate join (new user, no token)", queuegate,
                                queuegate.url("/api/products/" + JOINING), lua + "join.lua", prefix -> List.of(prefix)));
                Throughput bench = new Throughput(rawDir, workDir, connections, redisProcess);
                bench.sanityCheck(targets, admittedFile, waitingFile, jwt);
                if (Boolean.getBoolean("bench.hold")) {
                    // For poking at the running set-up by hand: print the URLs and wait.
                    targets.forEach(t -> System.out.println("hold " + t.name() + " " + t.url() + " " + t.script()
                            + " " + t.scriptArgs().apply("manual")));
                    Thread.sleep(Long.getLong("bench.hold.millis", 600_000));
                    return false;
                }
                WarmUp warmUp = bench.warmUp(targets, warmupSeconds);
                Map<String, List<Run>> runs = new LinkedHashMap<>();
                targets.forEach(t -> runs.put(t.name(), new ArrayList<>()));
                for (int round = 1; round <= rounds; round++) {
                    for (Target target : targets) {
                        Run run = bench.measure(target, seconds, "r" + round);
                        runs.get(target.name()).add(run);
                        System.out.printf("round %d %-13s %9.0f req/s p50 %6.2f ms p99 %6.2f ms non-2xx %d"
                                + " redis/req %.2f (client %.2f) gateway CPU %.0f µs/req%n", round, target.name(),
                                run.requestsPerSecond(), run.p50Ms(), run.p99Ms(), run.non2xx(),
                                perRequest(run.redisCalls(), run.requests()), perRequest(run.clientCommands(),
                                        run.requests()), run.gatewayMicros());
                    }
                }
                // Profiles tell where the time goes whatever the machine's load; the figures only on a quiet one.
                Map<String, String> profiles = new LinkedHashMap<>();
                for (Target target : targets) {
                    if (List.of("bare", "plain", "admitted", "waiting", "join").contains(target.name())) {
                        System.out.println("profile " + target.name());
                        profiles.put(target.label(), bench.profile(target, seconds));
                    }
                }
                writeProfiles(results.resolve("throughput-profile.md"), profiles, seconds);
                List<String> unquiet = new ArrayList<>();
                if (rounds < 3) {
                    unquiet.add("fewer than 3 rounds, so no spread to judge the machine by");
                }
                for (String baseline : List.of("bare", "framework")) {
                    double spread = spread(runs.get(baseline));
                    if (spread > Rounds.MAX_BASELINE_SPREAD) {
                        unquiet.add(String.format(Locale.ROOT, "%s rounds spread %.0f %%", baseline, spread * 100));
                    }
                }
                if (!unquiet.isEmpty()) {
                    System.out.println("NOT WRITTEN: " + String.join(", ", unquiet) + " (a baseline may spread at "
                            + "most " + Math.round(Rounds.MAX_BASELINE_SPREAD * 100) + " %): the figures cannot tell the paths "
                            + "apart. Run it again with 3 rounds or more on a quieter machine (load average now "
                            + Machine.loadAverage() + ").");
                    return false;
                }
                write(results.resolve("throughput.md"), targets, runs, rounds, seconds, warmupSeconds,
                        warmUp.describe(), connections, command, redisProcess);
                return true;
            }
            finally {
                for (GatewayProcess gateway : gateways) {
                    gateway.close();
                }
                backend.disposeNow();
                backendLoops.disposeLater().block();
            }
        }
    }

    static GatewayProcess start(List<GatewayProcess> started, String name, String classpathProperty,
            String mainClass, Map<String, Object> properties, Path workDir) throws Exception {
        String classpath = System.getProperty(classpathProperty);
        if (classpath == null) {
            throw new IllegalStateException(classpathProperty + " is not set: run the benchmark with bench/run");
        }
        System.out.println("starting " + name);
        GatewayProcess gateway = GatewayProcess.start(name, classpath, mainClass, properties, READY, workDir);
        started.add(gateway);
        return gateway;
    }

    /** (max − min) ÷ median of the rounds' throughput. */
    static double spread(List<Run> runs) {
        return Rounds.spread(runs.stream().mapToDouble(Run::requestsPerSecond).toArray());
    }

    /** A shop's RS256 key pair: the public key for the gateways that validate, a JWT signed with the private one. */
    record Jwt(Path publicKey, Path file, String token) {

        static Jwt make(Path dir) throws Exception {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            KeyPair pair = generator.generateKeyPair();
            Path publicKey = dir.resolve("jwt-public.pem");
            Files.writeString(publicKey, "-----BEGIN PUBLIC KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                            .encodeToString(pair.getPublic().getEncoded())
                    + "\n-----END PUBLIC KEY-----\n");
            String token = Jwts.builder().subject("bench-shopper").issuedAt(new Date())
                    .expiration(Date.from(Instant.now().plus(Duration.ofHours(6))))
                    .signWith(pair.getPrivate(), Jwts.SIG.RS256).compact();
            Path file = dir.resolve("jwt.token");
            Files.writeString(file, token + "\n");
            return new Jwt(publicKey, file, token);
        }

        Map<String, Object> validating(Map<String, Object> properties) {
            Map<String, Object> with = new LinkedHashMap<>(properties);
            with.put("spring.security.oauth2.resourceserver.jwt.public-key-location", "file:" + publicKey.toAbsolutePath());
            return with;
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

    /**
     * The runnable gateway's settings for the bench: the product route (queue block) and a plain
     * route, header identity from loopback (as a shop's login proxy), join limits lifted (wrk is
     * one address) and the join path without a proof of work.
     */
    static Map<String, Object> queueGate(RedisProcess redis, String backendUrl) {
        Map<String, Object> properties = GatewayInstance.defaults(redis, backendUrl, Map.of(
                "max-active", "1000000",
                "session-ttl", "1h",
                "join-challenge", "none"));
        properties.remove("server.port");
        properties.put("management.server.port", "0");
        properties.put("queuegate.products." + WAITING + ".max-active", "1");
        properties.put("queuegate.products." + JOINING + ".max-active", "1");
        properties.put("queuegate.joins.max-per-caller", "1000000");
        // wrk is one address: the per-address limit (for a carrier NAT's crowd) would stop the join path.
        properties.put("queuegate.joins.max-per-address", "100000000");
        String plain = "spring.cloud.gateway.server.webflux.routes[1].";
        properties.put(plain + "id", "plain");
        properties.put(plain + "uri", backendUrl);
        properties.put(plain + "predicates[0]", "Path=/plain/**");
        return properties;
    }

    /**
     * Joins USERS users of {@code product} by one request each and writes "user token" lines, the
     * tokens as the gateway handed them out (a waiting one carries its holder's ticket).
     */
    private static void prepareUsers(GatewayProcess gateway, String product, String prefix, Path file,
            int expectedAfterFirst) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        StringBuilder lines = new StringBuilder();
        Map<Integer, Integer> statuses = new HashMap<>();
        for (int i = 0; i < USERS; i++) {
            String user = prefix + i;
            HttpResponse<Void> response = http.send(HttpRequest.newBuilder(URI.create(gateway.url("/api/products/" + product)))
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

    /** Each path answers what it should before any load. */
    private void sanityCheck(List<Target> targets, Path admitted, Path waiting, Jwt jwt) throws Exception {
        String[] a = Files.readAllLines(admitted).get(1).split(" ");
        String[] w = Files.readAllLines(waiting).get(1).split(" ");
        Map<String, Integer> wanted = Map.of("waiting", 429, "join", 200);
        for (Target target : targets) {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(target.url())).header("Accept",
                    "application/json");
            switch (target.name()) {
                case "admitted", "bare-shaped" -> request.header("X-User-Id", a[0]).header("Queue-Token", a[1]);
                case "waiting" -> request.header("X-User-Id", w[0]).header("Queue-Token", w[1]);
                case "join" -> request.header("X-User-Id", "sanity-joiner");
                case "framework-jwt", "plain-jwt" -> request.header("Authorization", "Bearer " + jwt.token());
                default -> request.header("X-User-Id", "bench-user");
            }
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            System.out.println("sanity " + target.name() + " " + target.url() + " -> " + response.statusCode() + " "
                    + abbreviate(response.body()));
            if (response.statusCode() != wanted.getOrDefault(target.name(), 200)) {
                throw new IllegalStateException(target.url() + " answered " + response.statusCode());
            }
        }
        // A forged JWT is refused where JWTs are validated: the JWT paths do validate.
        for (Target target : targets) {
            if (target.name().endsWith("-jwt")) {
                HttpResponse<String> forged = http.send(HttpRequest.newBuilder(URI.create(target.url()))
                        .header("Authorization", "Bearer " + jwt.token().substring(0, jwt.token().length() - 4) + "AAAA")
                        .build(), HttpResponse.BodyHandlers.ofString());
                if (forged.statusCode() != 401) {
                    throw new IllegalStateException(target.name() + " let a forged JWT through: " + forged.statusCode());
                }
            }
        }
        // The first joiner of the join product holds its only place; everyone after waits.
        Target join = targets.stream().filter(t -> t.name().equals("join")).findFirst().orElseThrow();
        HttpResponse<String> second = http.send(HttpRequest.newBuilder(URI.create(join.url()))
                .header("X-User-Id", "sanity-joiner-2").build(), HttpResponse.BodyHandlers.ofString());
        if (second.statusCode() != 429) {
            throw new IllegalStateException("a second joiner got " + second.statusCode());
        }
    }

    private static String abbreviate(String body) {
        return body.length() > 100 ? body.substring(0, 100) + "..." : body;
    }

    Run measure(Target target, int seconds, String tag) throws Exception {
        Map<String, Long> before = commandStats();
        long clientBefore = clientCommands(target);
        double cpuBefore = redisCpu.seconds();
        double gatewayBefore = target.gateway() == null ? Double.NaN : target.gateway().cpuSeconds();
        String output = wrk(target, seconds, tag);
        double gatewayUsed = target.gateway() == null ? Double.NaN : target.gateway().cpuSeconds() - gatewayBefore;
        double cpuUsed = redisCpu.seconds() - cpuBefore;
        long client = clientCommands(target) - clientBefore;
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
                run.socketErrors(), calls, scripts, client, cpuUsed, gatewayUsed);
    }

    /** The commands QueueGate's Redis client completed so far (ThroughputConfig), 0 for other gateways. */
    private long clientCommands(Target target) throws Exception {
        if (target.gateway() == null || !target.gateway().name().startsWith("queuegate")) {
            return 0;
        }
        return Long.parseLong(http.send(HttpRequest.newBuilder(URI.create(target.gateway().url("/bench/redis-commands")))
                .build(), HttpResponse.BodyHandlers.ofString()).body().trim());
    }

    private Map<String, Long> commandStats() {
        Map<String, Long> stats = new HashMap<>();
        Matcher m = Pattern.compile("cmdstat_([^:]+):calls=(\\d+)").matcher(redis.commands().info("commandstats"));
        while (m.find()) {
            stats.put(m.group(1), Long.parseLong(m.group(2)));
        }
        return stats;
    }

    /**
     * Seconds of each warm-up pass. Every gateway shares two cores with the others while it
     * compiles: a short warm-up left the C2 compiler behind, and the first rounds then measured the
     * JIT, not the gateway (97 % spread over three rounds).
     */
    static int warmupSeconds(int seconds) {
        return Math.max(15, seconds * 3 / 2);
    }

    /**
     * Two passes over every target, so the compilation the first pass queued has finished; then
     * more passes, up to {@link #MAX_WARMUP_PASSES}, over the gateways whose CPU a request in their
     * last pass was still more than {@link #SETTLED} below their best before it. A gateway with
     * Spring Security on every request compiles for longest: after two passes one still spent
     * twice its later CPU a request in the first round (58 % spread over three rounds), which
     * measured its JIT, not the gateway. A pass that got slower counts as settled: on a machine
     * whose speed wanders, only a fall says the JIT is still at work.
     */
    WarmUp warmUp(List<? extends Target> targets, int seconds) throws Exception {
        Map<String, Integer> passes = new LinkedHashMap<>();
        Map<String, Double> best = new HashMap<>();
        List<Target> settling = new ArrayList<>(targets);
        for (int pass = 1; pass <= MAX_WARMUP_PASSES && !settling.isEmpty(); pass++) {
            List<Target> still = new ArrayList<>();
            for (Target target : settling) {
                Run run = measure(target, seconds, "warmup");
                if (target.gateway() != null && run.requests() == 0) {
                    throw new IllegalStateException("wrk served no request of " + target.name() + " while warming up");
                }
                double micros = run.gatewayMicros();
                Double before = best.get(target.name());
                if (before == null || micros < before) {
                    best.put(target.name(), micros);
                }
                passes.put(target.name(), pass);
                System.out.printf(Locale.ROOT, "warm-up %d %-13s gateway CPU %.0f µs/req%n", pass, target.name(), micros);
                // NaN (the backend alone) compares false: settled once the fixed passes are done.
                if (pass < WARMUP_PASSES || before != null && micros < before * (1 - SETTLED)) {
                    still.add(target);
                }
            }
            settling = still;
        }
        return new WarmUp(passes, settling.stream().map(Target::name).toList());
    }

    static final int WARMUP_PASSES = 2;

    static final int MAX_WARMUP_PASSES = 4;

    /** A gateway whose CPU a request fell by less than this below its best has compiled its path. */
    static final double SETTLED = 0.15;

    /**
     * How the warm-up went: the passes each target had, by name, and the targets still getting
     * faster when the passes ran out.
     */
    record WarmUp(Map<String, Integer> passes, List<String> stillFalling) {

        /** For the results. */
        String describe() {
            StringBuilder more = new StringBuilder();
            passes.forEach((name, count) -> {
                if (count > WARMUP_PASSES) {
                    more.append(more.isEmpty() ? "" : ", ").append(name).append(' ').append(count);
                }
            });
            return WARMUP_PASSES + " passes" + (more.isEmpty() ? "" : " (more for the paths still getting faster: "
                    + more + ")") + (stillFalling.isEmpty() ? "" : "; still getting faster after "
                    + MAX_WARMUP_PASSES + " passes, measured anyway: " + String.join(", ", stillFalling));
        }
    }

    /** Runs wrk once; keeps its output under raw/ (except warm-ups) and returns it. */
    String wrk(Target target, int seconds, String tag) {
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
        return new Run(rps, requests, p50, p99, non2xx, errors, redisCalls, redisScripts, client, 0, Double.NaN);
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

    /** One extra wrk run under a JFR recording in the gateway's JVM (profile settings); summarised as Markdown. */
    private String profile(Target target, int seconds) throws Exception {
        Path file = workDir.resolve("throughput-" + target.name() + ".jfr");
        target.gateway().startProfile();
        wrk(target, seconds, "profile");
        target.gateway().stopProfile(file);
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
                .append("a JFR recording (the JDK's `profile` settings, started in the gateway's own JVM with ")
                .append("`jcmd JFR.start`); these runs are not part of the measured figures. The JFR files are ")
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

    static double median(List<Run> runs, java.util.function.ToDoubleFunction<Run> field) {
        return Rounds.median(runs.stream().mapToDouble(field).toArray());
    }

    private static void write(Path out, List<Target> targets, Map<String, List<Run>> runs, int rounds, int seconds,
            int warmupSeconds, String warmUp, int connections, String command, RedisProcess redis) throws IOException {
        double bareRps = median(runs.get("bare"), Run::requestsPerSecond);
        double bareP99 = median(runs.get("bare"), Run::p99Ms);
        double frameworkRps = median(runs.get("framework"), Run::requestsPerSecond);
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
                .append("same cores: wrk, the backend (in the bench's JVM, on its own two event-loop threads), Redis, ")
                .append("and five gateways, each in a JVM of its own with the same flags (`-Xms512m -Xmx512m ")
                .append("-XX:+UseG1GC`), idle while another is measured. Load average (1, 5, 15 min) at the start: ")
                .append(LOAD_AT_START).append(", at the end: ").append(Machine.loadAverage())
                .append(" (a load above the core count means other work shared the machine).\n\n")
                .append("Each run: `wrk -t").append(THREADS).append(" -c").append(connections).append(" -d")
                .append(seconds).append("s --latency`; a ").append(warmupSeconds)
                .append(" s warm-up pass per path first, in turn, a path passing again (up to ")
                .append(MAX_WARMUP_PASSES).append(" passes) while its gateway's CPU a request still fell more than ")
                .append(Math.round(SETTLED * 100)).append(" % below its best pass before: ").append(warmUp)
                .append("; then ").append(rounds)
                .append(" interleaved rounds (every path once per round, in the order below); medians of the rounds. ")
                .append("A run is written only when both baselines' rounds spread at most ")
                .append(Math.round(Rounds.MAX_BASELINE_SPREAD * 100)).append(" % ((max − min) ÷ median).\n\n")
                .append("The gateways: **bare** is Spring Cloud Gateway with only the gateway and reactive Redis starters ")
                .append("(module `bench/bare-gateway`), with a plain route and the same route behind its ")
                .append("`RequestRateLimiter` on Redis (replenishRate = burstCapacity = 10^8, one key: never denies); ")
                .append("its `bare-shaped` path sends the admitted path's requests (the same headers and tokens) ")
                .append("through a route with QueueGate's queued route's path template, `/api/products/{productId}`, ")
                .append("and forwards them whole (it knows no token to leave out). ")
                .append("**framework** is the runnable gateway's starters and settings (actuator, Prometheus, ")
                .append("Resilience4j, Spring Security letting everything through) without QueueGate (module ")
                .append("`bench/framework-gateway`); its `-jwt` twin validates an RS256 bearer JWT (a public key ")
                .append("in PEM). **QueueGate** is the runnable gateway with its defaults plus header identity from ")
                .append("loopback, join limits lifted and `join-challenge: none` on the queued route; its `-jwt` twin ")
                .append("takes the shopper from the same validated JWT (`identity.source: principal`). Paths: the ")
                .append("backend is a Reactor Netty server answering any GET with a 66-byte JSON. Admitted: ")
                .append(USERS).append(" users of product `a` (max-active 10^6), each made active by one request ")
                .append("beforehand, cycled with their tokens. Waiting: ").append(USERS).append(" users of product ")
                .append("`w` (max-active 1) holding the wait tokens its answers gave them (with their tickets: ")
                .append("answered from the gateway's view of the line), polling (429). Join: a new user id per ")
                .append("request, no token, product `j` (max-active 1), so each joins the back of the line (429 with ")
                .append("a token).\n\n")
                .append("Redis per request: the growth of `INFO commandstats` (all commands but INFO, which counts ")
                .append("the commands scripts run inside Redis too), of QueueGate's Lettuce client's completed ")
                .append("commands (client round trips) and of Redis's main-thread CPU (`INFO cpu`, user + sys), ")
                .append("over all rounds of the path, divided by the requests wrk reports; they include the ")
                .append("gateways' background work, a few calls a second.\n\n");
        md.append("| path | req/s (median) | spread | ÷ bare | ÷ framework | p50 ms | p99 ms | p99 ÷ bare p99 | "
                + "gateway CPU µs/req | Redis CPU µs/req | Redis cmds/req | scripts/req | round trips/req | non-2xx |\n")
                .append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Target target : targets) {
            List<Run> list = runs.get(target.name());
            long requests = list.stream().mapToLong(Run::requests).sum();
            long non2xx = list.stream().mapToLong(Run::non2xx).sum();
            double rps = median(list, Run::requestsPerSecond);
            double p99 = median(list, Run::p99Ms);
            double cpu = list.stream().mapToDouble(Run::redisCpuSeconds).sum() * 1e6 / Math.max(1, requests);
            md.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f %% | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f | "
                            + "%.2f | %.2f | %.2f | %.2f | %s |%n",
                    target.label(), rps, spread(list) * 100, rps / bareRps, rps / frameworkRps, median(list, Run::p50Ms),
                    p99, p99 / bareP99, median(list, Run::gatewayMicros), cpu, perRequest(list.stream().mapToLong(Run::redisCalls).sum(), requests),
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
                md.append(String.format(Locale.ROOT, " %.0f, %.2f |", run.requestsPerSecond(), run.p99Ms()));
            }
            md.append('\n');
        }
        md.append("\nTargets (medians of the rounds):\n\n");
        ratio(md, runs, "plain", "bare", "route without a queue ÷ bare", 0.95);
        ratio(md, runs, "admitted", "bare", "admitted ÷ bare", 0.90);
        p99(md, runs, "admitted", "bare", "admitted p99 ÷ bare p99", 1.2);
        ratio(md, runs, "waiting", "bare", "waiting ÷ bare", 1.5);
        p99(md, runs, "waiting", "bare", "waiting p99 ÷ bare p99", 1.0);
        ratio(md, runs, "join", "bare", "join ÷ bare", 1.0);
        List<Run> waiting = runs.get("waiting");
        double waitingCpu = waiting.stream().mapToDouble(Run::redisCpuSeconds).sum() * 1e6
                / Math.max(1, waiting.stream().mapToLong(Run::requests).sum());
        target(md, "Redis CPU per waiting poll ≤ 2 µs", waitingCpu <= 2, String.format(Locale.ROOT, "%.2f µs", waitingCpu));
        md.append("\nFor telling costs apart (no target): framework ÷ bare ")
                .append(String.format(Locale.ROOT, "%.2f", frameworkRps / bareRps))
                .append(", the bare gateway with the admitted request's shape ÷ bare ").append(String.format(Locale.ROOT,
                        "%.2f", median(runs.get("bare-shaped"), Run::requestsPerSecond) / bareRps))
                .append(", QueueGate admitted ÷ that shape ").append(String.format(Locale.ROOT, "%.2f",
                        median(runs.get("admitted"), Run::requestsPerSecond)
                                / median(runs.get("bare-shaped"), Run::requestsPerSecond)))
                .append(", QueueGate's route without ")
                .append("a queue ÷ framework ").append(String.format(Locale.ROOT, "%.2f",
                        median(runs.get("plain"), Run::requestsPerSecond) / frameworkRps))
                .append(", with a JWT validated: QueueGate ÷ framework ").append(String.format(Locale.ROOT, "%.2f",
                        median(runs.get("plain-jwt"), Run::requestsPerSecond)
                                / median(runs.get("framework-jwt"), Run::requestsPerSecond)))
                .append(".\n\nRaw wrk outputs: `bench/results/raw/throughput-r<round>-<path>.txt`; profiles: ")
                .append("`bench/results/throughput-profile.md`.\n");
        Files.writeString(out, md.toString());
        System.out.println(md);
        System.out.println("wrote " + out);
    }

    private static void ratio(StringBuilder md, Map<String, List<Run>> runs, String path, String base, String name,
            double wanted) {
        double ratio = median(runs.get(path), Run::requestsPerSecond) / median(runs.get(base), Run::requestsPerSecond);
        target(md, name + " ≥ " + wanted, ratio >= wanted, String.format(Locale.ROOT, "%.2f", ratio));
    }

    private static void p99(StringBuilder md, Map<String, List<Run>> runs, String path, String base, String name,
            double most) {
        double ratio = median(runs.get(path), Run::p99Ms) / median(runs.get(base), Run::p99Ms);
        target(md, name + " ≤ " + most, ratio <= most, String.format(Locale.ROOT, "%.2f", ratio));
    }

    private static void target(StringBuilder md, String name, boolean met, String value) {
        md.append("- ").append(name).append(": ").append(value).append(" — ").append(met ? "met" : "**missed**")
                .append('\n');
    }
}
