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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.queuegate.app.QueueGateApplication;
import io.queuegate.room.AdminAction;
import io.queuegate.store.ProductQueues;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

/**
 * How soon every waiting shopper hears "sold out": a crowd waits on two gateway instances sharing
 * one Redis, each shopper's live stream open (half on each instance), and the stock goes to 0
 * through one instance; for each stream, the time from that moment to its {@code sold_out} event.
 * The budget is two seconds for every stream. Each round is a product of its own.
 *
 * <p>Run by {@code bench/run sold-out [waiting] [rounds]}; writes {@code bench/results/sold-out.md}.
 */
public final class SoldOut {

    private static final int MAX_ACTIVE = 10;
    private static final Duration BUDGET = Duration.ofSeconds(2);
    private static final Duration GIVE_UP = Duration.ofSeconds(15);

    private SoldOut() {
    }

    public static void main(String[] args) throws Exception {
        int waiting = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        Path out = Path.of(args.length > 2 ? args[2] : "bench/results/sold-out.md");
        String loadBefore = Machine.loadAverage();
        List<String> lines = new ArrayList<>();
        try (RedisProcess redis = RedisProcess.start()) {
            WireMockServer backend = Backend.start();
            List<GatewayInstance> gateways = new ArrayList<>();
            try {
                for (int i = 0; i < 2; i++) {
                    Map<String, Object> properties = GatewayInstance.defaults(redis, backend.baseUrl(), Map.of(
                            "max-active", Integer.toString(MAX_ACTIVE), "session-ttl", "10m"));
                    // The bench's classpath may hold the runnable gateway's fixed management port.
                    properties.put("management.server.port", "0");
                    properties.put("queuegate.events.max-per-address", Integer.toString(waiting + 100));
                    // The whole crowd joins from this machine's one address.
                    properties.put("queuegate.joins.max-per-address", "1000000");
                    // The runnable gateway: its Spring Security lets shoppers through to the routes.
                    gateways.add(GatewayInstance.start(QueueGateApplication.class, properties));
                }
                // A round to warm the JIT of both instances; its figures are dropped.
                round(gateways, "warm", Math.min(waiting, 200));
                for (int r = 1; r <= rounds; r++) {
                    Result result = round(gateways, "so" + r, waiting);
                    String line = "| " + r + " | " + waiting + " | " + result.heard() + " | " + ms(result.latency(), 50)
                            + " | " + ms(result.latency(), 90) + " | " + ms(result.latency(), 99) + " | "
                            + ms(result.latency(), 100) + " | " + result.withinBudget() + " | " + result.pollStatus()
                            + " |";
                    System.out.println(line);
                    lines.add(line);
                }
            }
            finally {
                GatewayInstance.closeAll(gateways);
                backend.stop();
            }
        }
        write(out, waiting, rounds, loadBefore, Machine.loadAverage(), lines);
    }

    private record Result(Histogram latency, long heard, long withinBudget, int pollStatus) {
    }

    private static Result round(List<GatewayInstance> gateways, String product, int waiting) throws Exception {
        WebClient http = WebClient.create();
        setStock(gateways.get(0), product, "1000000");
        List<String[]> shoppers = new ArrayList<>();
        for (int i = 0; i < MAX_ACTIVE + waiting; i++) {
            String user = product + "-u" + i;
            String token = http.get().uri(gateways.get(i % 2).baseUrl() + "/api/products/" + product)
                    .header("X-User-Id", user).accept(MediaType.APPLICATION_JSON)
                    .exchangeToMono(response -> response.bodyToMono(String.class).defaultIfEmpty("")
                            .map(body -> {
                                String issued = response.headers().asHttpHeaders().getFirst("Queue-Token");
                                if (issued == null) {
                                    throw new IllegalStateException("no token for " + user + ": "
                                            + response.statusCode() + " " + body);
                                }
                                return issued;
                            }))
                    .block(Duration.ofSeconds(10));
            if (i >= MAX_ACTIVE) {
                shoppers.add(new String[] {user, token});
            }

        }
        ConnectionProvider connections = ConnectionProvider.builder("sold-out-" + product).maxConnections(waiting)
                .pendingAcquireMaxCount(-1).build();
        LoopResources loops = LoopResources.create("sold-out-" + product, 2, true);
        CountDownLatch first = new CountDownLatch(waiting);
        CountDownLatch soldOut = new CountDownLatch(waiting);
        AtomicLong soldAt = new AtomicLong(Long.MAX_VALUE);
        Histogram latency = new ConcurrentHistogram(TimeUnit.MINUTES.toMicros(1), 3);
        AtomicLong withinBudget = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        List<Disposable> streams = new ArrayList<>();
        try {
            for (int i = 0; i < shoppers.size(); i++) {
                String[] shopper = shoppers.get(i);
                HttpClient client = HttpClient.create(connections).runOn(loops)
                        .baseUrl(gateways.get(i % 2).baseUrl()).responseTimeout(Duration.ofMinutes(5));
                boolean[] seenFirst = {false};
                streams.add(client.headers(headers -> headers.set("X-User-Id", shopper[0]).set("Queue-Token", shopper[1])
                                .set(HttpHeaderNames.ACCEPT, "text/event-stream"))
                        .get().uri("/queue/" + product + "/events")
                        .response((response, body) -> {
                            if (response.status().code() != 200 && refused.getAndIncrement() == 0) {
                                System.out.println("a stream was refused: " + response.status());
                            }
                            return body.asString();
                        })
                        .doOnNext(chunk -> {
                            if (!seenFirst[0]) {
                                seenFirst[0] = true;
                                first.countDown();
                            }
                            if (chunk.contains("event:sold_out")) {
                                long micros = (System.nanoTime() - soldAt.get()) / 1_000;
                                latency.recordValue(Math.max(0, micros));
                                if (micros <= BUDGET.toNanos() / 1_000) {
                                    withinBudget.incrementAndGet();
                                }
                                soldOut.countDown();
                            }
                        })
                        .onErrorResume(error -> {
                            if (refused.getAndIncrement() == 0) {
                                System.out.println("a stream failed: " + error);
                            }
                            return Flux.empty();
                        })
                        .subscribe());
            }
            if (!first.await(2, TimeUnit.MINUTES)) {
                throw new IllegalStateException(first.getCount() + " streams never opened");
            }
            soldAt.set(System.nanoTime());
            setStock(gateways.get(0), product, "0");
            soldOut.await(GIVE_UP.toMillis(), TimeUnit.MILLISECONDS);
            String[] someone = shoppers.get(shoppers.size() / 2);
            int pollStatus = http.get().uri(gateways.get(1).baseUrl() + "/api/products/" + product)
                    .header("X-User-Id", someone[0]).header("Queue-Token", someone[1]).accept(MediaType.APPLICATION_JSON)
                    .exchangeToMono(response -> response.releaseBody().thenReturn(response.statusCode().value()))
                    .block(Duration.ofSeconds(10));
            return new Result(latency, latency.getTotalCount(), withinBudget.get(), pollStatus);
        }
        finally {
            streams.forEach(Disposable::dispose);
            connections.dispose();
            loops.dispose();
        }
    }

    /** The operator's stock action, as the queues endpoint applies it, on one instance. */
    private static void setStock(GatewayInstance gateway, String product, String units) {
        gateway.bean(ProductQueues.class).control(product, AdminAction.STOCK, units).block(Duration.ofSeconds(10));
    }

    private static String ms(Histogram histogram, double percentile) {
        return histogram.getTotalCount() == 0 ? "-"
                : String.format("%.0f", histogram.getValueAtPercentile(percentile) / 1000.0);
    }

    private static void write(Path out, int waiting, int rounds, String loadBefore, String loadAfter,
            List<String> lines) {
        StringBuilder md = new StringBuilder();
        md.append("# Sold out: how soon every waiting shopper hears it\n\n")
                .append("Written by `bench/run sold-out ").append(waiting).append(' ').append(rounds).append("` on ")
                .append(Instant.now()).append(", commit ").append(Machine.git("rev-parse", "--short", "HEAD"))
                .append(Machine.uncommitted()).append(".\n\n")
                .append("Machine: ").append(Machine.describe()).append("; load average before ").append(loadBefore)
                .append(", after ").append(loadAfter).append(".\n\n")
                .append("Two runnable gateway instances on one Redis, the bench's streams in the same JVM. Per round: a product ")
                .append("of its own, ").append(MAX_ACTIVE).append(" admitted and ").append(waiting)
                .append(" waiting, each waiting shopper's live stream open (half on each instance, its first event ")
                .append("received); then the operator's `stock` action (as the queues endpoint applies it) sets 0 through one instance. Latency: from ")
                .append("sending that action to each stream's `sold_out` event. The budget is ")
                .append(BUDGET.toSeconds()).append(" s for every stream; `poll` is what a waiting shopper's next ")
                .append("request on the other instance is answered (410 = `sold_out`).\n\n")
                .append("| round | waiting | heard | p50 ms | p90 ms | p99 ms | max ms | within ")
                .append(BUDGET.toSeconds()).append(" s | poll |\n|---|---|---|---|---|---|---|---|---|\n");
        lines.forEach(line -> md.append(line).append('\n'));
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
