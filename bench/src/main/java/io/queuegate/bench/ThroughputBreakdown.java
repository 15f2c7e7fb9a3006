package io.queuegate.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.queuegate.support.RedisProcess;

import reactor.netty.DisposableServer;
import reactor.netty.resources.LoopResources;

/**
 * Where the route without a queue spends its time: the runnable gateway with QueueGate, once as
 * shipped and once with each piece taken away (or put back), every variant in a JVM of its own,
 * measured on the same plain route in interleaved rounds beside the bare gateway. A piece's cost
 * is the throughput its variant gains over (or loses against) the shipped one.
 *
 * <p>Run by {@code bench/run throughput-breakdown}; writes {@code bench/results/throughput-breakdown.md}, or
 * {@code throughput-breakdown-selected.md} for the variants {@code BENCH_VARIANTS} names.
 */
public final class ThroughputBreakdown {

    /** A variant: its name, what it changes, and the properties that change it. */
    private static final Map<String, Object> NO_OBSERVATIONS = Map.of(
            "management.observations.enable.spring.security", "false",
            "management.observations.enable.http.server.requests", "false",
            "spring.cloud.gateway.server.webflux.observability.enabled", "false");

    private static Map<String, Object> with(Map<String, Object> a, Map<String, Object> b) {
        Map<String, Object> all = new LinkedHashMap<>(a);
        all.putAll(b);
        return all;
    }

    record Variant(String name, String change, Map<String, Object> properties) {
    }

    public static void main(String[] args) {
        Throughput.exit(() -> run(args));
    }

    private static boolean run(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int connections = args.length > 2 ? Integer.parseInt(args[2]) : 64;
        String load = Machine.loadAverage();
        Path rawDir = Path.of("bench/results/raw");
        Path workDir = Path.of("bench/target/throughput-breakdown");
        Files.createDirectories(rawDir);
        Files.createDirectories(workDir);
        List<Variant> variants = List.of(
                new Variant("shipped", "the runnable gateway as shipped", Map.of()),
                new Variant("no-security-observation", "Spring Security's observations off",
                        Map.of("management.observations.enable.spring.security", "false")),
                new Variant("no-server-observation", "the HTTP server's observation (`http.server.requests`) off",
                        Map.of("management.observations.enable.http.server.requests", "false")),
                new Variant("no-gateway-observation", "Spring Cloud Gateway's observability off",
                        Map.of("spring.cloud.gateway.server.webflux.observability.enabled", "false")),
                new Variant("no-keep-alive-workaround", "`queuegate.server.keep-alive-workaround: false`",
                        Map.of("queuegate.server.keep-alive-workaround", "false")),
                new Variant("no-idle-timeout", "no `server.netty.idle-timeout` (Reactor Netty's idle timer between requests)",
                        Map.of("server.netty.idle-timeout", "")),
                new Variant("no-header-read-timeout", "`queuegate.server.header-read-timeout: 0` (none)",
                        Map.of("queuegate.server.header-read-timeout", "0")),
                new Variant("queuegate-off", "`queuegate.enabled: false` (no QueueGate filter of any kind)",
                        // The runnable gateway's readiness group names QueueGate's health contributor.
                        Map.of("queuegate.enabled", "false", "management.endpoint.health.group.readiness.include",
                                "readinessState")),
                new Variant("no-observations", "every observation off (security, HTTP server, gateway)",
                        NO_OBSERVATIONS),
                new Variant("lean", "every observation off, no keep-alive workaround, no header-read timeout",
                        with(NO_OBSERVATIONS, Map.of("queuegate.server.keep-alive-workaround", "false",
                                "queuegate.server.header-read-timeout", "0"))),
                new Variant("framework-lean", "`queuegate.enabled: false` and every observation off",
                        with(NO_OBSERVATIONS, Map.of("queuegate.enabled", "false",
                                "management.endpoint.health.group.readiness.include", "readinessState"))));
        // Single variants move less than the rounds spread on two shared cores: pick a few by name
        // (-Dbench.variants=shipped,lean) to give each more of the machine.
        String only = System.getProperty("bench.variants", "");
        if (!only.isBlank()) {
            List<String> names = List.of(only.split(","));
            variants = variants.stream().filter(v -> names.contains(v.name())).toList();
        }

        List<GatewayProcess> gateways = new ArrayList<>();
        try (RedisProcess redis = RedisProcess.start()) {
            LoopResources loops = LoopResources.create("backend", 2, true);
            DisposableServer backend = Throughput.startBackend(loops);
            String backendUrl = "http://127.0.0.1:" + backend.port();
            try {
                Map<String, Object> common = Map.of("bench.backend-url", backendUrl, "spring.data.redis.port",
                        redis.port());
                List<Throughput.Target> targets = new ArrayList<>();
                GatewayProcess bare = Throughput.start(gateways, "bare", "bench.bare.classpath",
                        "io.queuegate.bench.bare.BareGatewayApplication", common, workDir);
                targets.add(target("bare", "bare Spring Cloud Gateway", bare));
                for (Variant variant : variants) {
                    Map<String, Object> properties = new LinkedHashMap<>(Throughput.queueGate(redis, backendUrl));
                    properties.putAll(variant.properties());
                    GatewayProcess gateway = Throughput.start(gateways, variant.name(), "java.class.path",
                            ThroughputConfig.class.getName(), properties, workDir);
                    targets.add(target(variant.name(), variant.change(), gateway));
                }
                Throughput bench = new Throughput(rawDir, workDir, connections, redis);
                bench.warmUp(targets, Throughput.warmupSeconds(seconds));
                Map<String, List<Throughput.Run>> runs = new LinkedHashMap<>();
                targets.forEach(t -> runs.put(t.name(), new ArrayList<>()));
                for (int round = 1; round <= rounds; round++) {
                    for (Throughput.Target target : targets) {
                        Throughput.Run run = bench.measure(target, seconds, "breakdown-r" + round);
                        runs.get(target.name()).add(run);
                        System.out.printf(Locale.ROOT, "round %d %-26s %9.0f req/s p99 %7.2f ms gateway CPU %4.0f µs/req%n",
                                round, target.name(), run.requestsPerSecond(), run.p99Ms(), run.gatewayMicros());
                    }
                }
                double spread = Throughput.spread(runs.get("bare"));
                if (rounds < 3 || spread > Rounds.MAX_BASELINE_SPREAD) {
                    System.out.printf(Locale.ROOT, "NOT WRITTEN: %d rounds, the bare gateway's spread %.0f %% (at most "
                            + "%.0f %% over 3 rounds or more): run it again on a quieter machine (load average now %s).%n",
                            rounds, spread * 100, Rounds.MAX_BASELINE_SPREAD * 100, Machine.loadAverage());
                    return false;
                }
                write(Path.of(only.isBlank() ? "bench/results/throughput-breakdown.md"
                        : "bench/results/throughput-breakdown-selected.md"), targets, runs, rounds, seconds, connections,
                        load);
                return true;
            }
            finally {
                for (GatewayProcess gateway : gateways) {
                    gateway.close();
                }
                backend.disposeNow();
                loops.disposeLater().block();
            }
        }
    }

    private static Throughput.Target target(String name, String label, GatewayProcess gateway) {
        return new Throughput.Target(name, label, gateway, gateway.url("/plain/api/products/1"), "bench/wrk/headers.lua",
                prefix -> List.of());
    }

    private static void write(Path out, List<Throughput.Target> targets, Map<String, List<Throughput.Run>> runs,
            int rounds, int seconds, int connections, String load) throws Exception {
        double bare = Throughput.median(runs.get("bare"), Throughput.Run::requestsPerSecond);
        double shipped = Throughput.median(runs.get("shipped"), Throughput.Run::requestsPerSecond);
        StringBuilder md = new StringBuilder("# Where the route without a queue spends its time\n\n");
        md.append("Written by `")
                .append(System.getProperty("bench.variants", "").isBlank() ? "bench/run throughput-breakdown"
                        : "BENCH_VARIANTS=" + System.getProperty("bench.variants") + " bench/run throughput-breakdown")
                .append("` on ").append(Instant.now()).append(", commit `")
                .append(Machine.git("rev-parse", "--short", "HEAD")).append('`').append(Machine.uncommitted())
                .append(".\n\nMachine: ").append(Machine.describe()).append(". Load average (1, 5, 15 min) at the start: ")
                .append(load).append(", at the end: ").append(Machine.loadAverage()).append(".\n\n")
                .append("The runnable gateway with QueueGate, as `bench/run throughput` runs it, once as shipped and once ")
                .append("per variant below, each in a JVM of its own with the same flags, all on the same route without ")
                .append("a queue (`/plain/**`), beside the bare gateway (gateway + reactive Redis starters). `wrk -t2 -c")
                .append(connections).append(" -d").append(seconds).append("s`, ").append(rounds)
                .append(" interleaved rounds, medians. A variant's gain over the shipped gateway is what its piece costs.\n\n")
                .append("| gateway | change | req/s (median) | spread | ÷ bare | ÷ shipped | p99 ms | gateway CPU µs/req |\n")
                .append("|---|---|---|---|---|---|---|---|\n");
        for (Throughput.Target target : targets) {
            List<Throughput.Run> list = runs.get(target.name());
            double rps = Throughput.median(list, Throughput.Run::requestsPerSecond);
            md.append(String.format(Locale.ROOT, "| %s | %s | %.0f | %.0f %% | %.2f | %.2f | %.2f | %.0f |%n", target.name(),
                    target.label(), rps, Throughput.spread(list) * 100, rps / bare, rps / shipped,
                    Throughput.median(list, Throughput.Run::p99Ms), Throughput.median(list, Throughput.Run::gatewayMicros)));
        }
        md.append("\nPer round (req/s):\n\n| gateway |");
        for (int r = 1; r <= rounds; r++) {
            md.append(" round ").append(r).append(" |");
        }
        md.append("\n|---|").append("---|".repeat(rounds)).append('\n');
        for (Throughput.Target target : targets) {
            md.append("| ").append(target.name()).append(" |");
            runs.get(target.name()).forEach(run -> md.append(String.format(Locale.ROOT, " %.0f |",
                    run.requestsPerSecond())));
            md.append('\n');
        }
        Files.writeString(out, md.toString());
        System.out.println(md);
    }
}
