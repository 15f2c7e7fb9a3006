package io.queuegate.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;

import org.HdrHistogram.Histogram;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * How long the next user waits once a place frees, per promotion strategy and per way the place
 * frees (completion, leave, expiry), on three gateway instances sharing one Redis. Admission is
 * observed in Redis itself by a tight polling loop (tens of microseconds a read), so the figure
 * is the system's delay, not a client's polling interval.
 *
 * <p>Run by {@code bench/run promotion}; writes {@code bench/results/promotion-latency.md}.
 */
public final class PromotionLatency {

    private static final List<String> STRATEGIES = List.of("scheduler", "pubsub", "keyspace", "stream");
    private static final int MAX_ACTIVE = 10;
    private static final Duration SHORT_SESSION = Duration.ofSeconds(1);
    private static final Duration SCHEDULER_INTERVAL = Duration.ofSeconds(1);
    private static final Duration SAFETY_NET_INTERVAL = Duration.ofSeconds(2);

    private final int events;
    private final RedisCommands<String, String> redis;
    private final List<GatewayInstance> gateways;
    private final WebClient http = WebClient.create();
    private final Random random = new Random(7);

    private PromotionLatency(int events, RedisCommands<String, String> redis, List<GatewayInstance> gateways) {
        this.events = events;
        this.redis = redis;
        this.gateways = gateways;
    }

    public static void main(String[] args) throws Exception {
        int events = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        Path out = Path.of(args.length > 1 ? args[1] : "bench/results/promotion-latency.md");
        // Redis finds expired keys by sampling them `hz` times a second (default 10); keyspace
        // promotion after an expiry can be no faster than that.
        String hz = args.length > 2 ? args[2] : "10";
        try (RedisProcess redisProcess = RedisProcess.start(List.of("hz " + hz))) {
            WireMockServer backend = Backend.start();
            List<GatewayInstance> gateways = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    gateways.add(GatewayInstance.start(properties(redisProcess, backend)));
                }
                Map<String, Map<String, Histogram>> results = new LinkedHashMap<>();
                PromotionLatency bench = new PromotionLatency(events, redisProcess.commands(), gateways);
                // JIT warm-up on all three instances; its figures are dropped.
                bench.afterRequest("p-pubsub", true);
                for (String strategy : STRATEGIES) {
                    Map<String, Histogram> byCause = new LinkedHashMap<>();
                    byCause.put("completion", bench.afterRequest("p-" + strategy, true));
                    byCause.put("leave", bench.afterRequest("p-" + strategy, false));
                    byCause.put("expiry", bench.afterExpiry("x-" + strategy));
                    results.put(strategy, byCause);
                    System.out.println(strategy + ": " + summary(byCause));
                }
                write(out, events, hz, results);
            }
            finally {
                GatewayInstance.closeAll(gateways);
                backend.stop();
            }
        }
    }

    private static Map<String, Object> properties(RedisProcess redis, WireMockServer backend) {
        Map<String, Object> properties = GatewayInstance.defaults(redis, backend.baseUrl(), Map.of(
                "max-active", Integer.toString(MAX_ACTIVE),
                "session-ttl", "10m",
                "complete-on", "POST /api/products/{productId}/orders"));
        for (String strategy : STRATEGIES) {
            properties.put("queuegate.products.p-" + strategy + ".promotion", strategy);
            properties.put("queuegate.products.x-" + strategy + ".promotion", strategy);
            properties.put("queuegate.products.x-" + strategy + ".session-ttl", SHORT_SESSION.toMillis() + "ms");
        }
        properties.put("queuegate.scheduler.interval", SCHEDULER_INTERVAL.toMillis() + "ms");
        properties.put("queuegate.safety-net.interval", SAFETY_NET_INTERVAL.toMillis() + "ms");
        return properties;
    }

    /** Frees places by completion or leave through random instances; measures until the next is in. */
    private Histogram afterRequest(String product, boolean completion) {
        redis.flushall();
        List<String> users = join(product, events + MAX_ACTIVE);
        Histogram histogram = new Histogram(3);
        for (int i = 0; i < events; i++) {
            String leaving = users.get(i);
            String next = users.get(i + MAX_ACTIVE);
            String token = tokenFor(product, leaving);
            GatewayInstance gateway = gateways.get(random.nextInt(gateways.size()));
            long start = System.nanoTime();
            if (completion) {
                http.post().uri(gateway.baseUrl() + "/api/products/" + product + "/orders")
                        .header("X-User-Id", leaving).header("Queue-Token", token)
                        .retrieve().toBodilessEntity().block();
            }
            else {
                http.delete().uri(gateway.baseUrl() + "/queue/" + product)
                        .header("X-User-Id", leaving).header("Queue-Token", token)
                        .retrieve().toBodilessEntity().block();
            }
            while (redis.zscore("qg:{" + product + "}:active", next) == null) {
                Thread.onSpinWait();
            }
            histogram.recordValue((System.nanoTime() - start) / 1_000);
        }
        return histogram;
    }

    /**
     * Lets sessions expire on their own; for each user who then gets in, the delay from the
     * expiry (the freed session's score) to the moment the user appears in the active set.
     */
    private Histogram afterExpiry(String product) {
        redis.flushall();
        join(product, events + MAX_ACTIVE);
        Histogram histogram = new Histogram(3);
        String activeKey = "qg:{" + product + "}:active";
        Map<String, Long> seen = new HashMap<>();
        for (ScoredValue<String> member : redis.zrangeWithScores(activeKey, 0, -1)) {
            seen.put(member.getValue(), (long) member.getScore());
        }
        Deque<Long> freedAt = new ArrayDeque<>();
        int recorded = 0;
        Instant deadline = Instant.now().plus(Duration.ofMinutes(5));
        while (recorded < events && Instant.now().isBefore(deadline)) {
            Map<String, Long> now = new HashMap<>();
            for (ScoredValue<String> member : redis.zrangeWithScores(activeKey, 0, -1)) {
                now.put(member.getValue(), (long) member.getScore());
            }
            long observedAt = System.currentTimeMillis();
            seen.keySet().stream().filter(user -> !now.containsKey(user)).map(seen::get).sorted()
                    .forEach(freedAt::add);
            Set<String> admitted = now.keySet().stream().filter(user -> !seen.containsKey(user))
                    .collect(Collectors.toSet());
            for (String ignored : admitted) {
                Long freed = freedAt.poll();
                if (freed != null && recorded < events) {
                    histogram.recordValue(Math.max(0, observedAt - freed) * 1_000);
                    recorded++;
                }
            }
            seen.clear();
            seen.putAll(now);
        }
        return histogram;
    }

    private List<String> join(String product, int count) {
        List<String> users = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String user = "u" + i;
            http.get().uri(gateways.get(i % gateways.size()).baseUrl() + "/api/products/" + product)
                    .header("X-User-Id", user)
                    .exchangeToMono(response -> response.releaseBody())
                    .block();
            users.add(user);
        }
        return users;
    }

    private String tokenFor(String product, String user) {
        return gateways.get(0).bean(io.queuegate.token.WaitTokenCodec.class).issue(product, user, false);
    }

    private static String summary(Map<String, Histogram> byCause) {
        return byCause.entrySet().stream()
                .map(e -> e.getKey() + " p50=" + ms(e.getValue(), 50) + " p99=" + ms(e.getValue(), 99) + " ms (n="
                        + e.getValue().getTotalCount() + ")")
                .collect(Collectors.joining(", "));
    }

    private static String ms(Histogram histogram, double percentile) {
        return String.format("%.1f", histogram.getValueAtPercentile(percentile) / 1000.0);
    }

    private static void write(Path out, int events, String hz, Map<String, Map<String, Histogram>> results) {
        StringBuilder md = new StringBuilder();
        md.append("# Promotion latency\n\n")
                .append("Written by `bench/run promotion` on ").append(Instant.now()).append(" (")
                .append(Runtime.getRuntime().availableProcessors()).append(" cores, Java ")
                .append(System.getProperty("java.version")).append(").\n\n")
                .append("Three gateway instances on one Redis; max-active ").append(MAX_ACTIVE).append("; ")
                .append(events).append(" events per cell. Completion/leave: from sending the request to the next ")
                .append("user being in the active set (includes the HTTP round trip). Expiry: from the session's ")
                .append("expiry time to the next user being in the active set; sessions of ")
                .append(SHORT_SESSION.toMillis()).append(" ms, scheduler interval ")
                .append(SCHEDULER_INTERVAL.toMillis()).append(" ms, safety net ")
                .append(SAFETY_NET_INTERVAL.toMillis()).append(" ms; Redis `hz ").append(hz).append("`.\n\n")
                .append("| strategy | cause | n | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|---|\n");
        results.forEach((strategy, byCause) -> byCause.forEach((cause, h) -> md.append("| ").append(strategy)
                .append(" | ").append(cause).append(" | ").append(h.getTotalCount()).append(" | ").append(ms(h, 50))
                .append(" | ").append(ms(h, 99)).append(" | ").append(ms(h, 100)).append(" |\n")));
        try {
            Files.createDirectories(out.toAbsolutePath().getParent());
            Files.writeString(out, md.toString());
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        System.out.println("wrote " + out);
    }
}
