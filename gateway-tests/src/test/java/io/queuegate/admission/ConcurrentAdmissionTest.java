package io.queuegate.admission;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * 200 users arrive at once on one product with max-active 5, spread over three gateway
 * instances sharing one Redis: exactly 5 get in, the other 195 hold ranks 1..195 with no gap
 * or duplicate, and completions then let them in strictly by rank.
 */
class ConcurrentAdmissionTest {

    private static final int USERS = 200;
    private static final int MAX_ACTIVE = 5;

    private static RedisProcess redis;
    private static WireMockServer backend;
    private static List<GatewayInstance> gateways = new ArrayList<>();
    private static WebClient http;
    private static ConnectionProvider connections;

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        backend = Backend.start();
        for (int i = 0; i < 3; i++) {
            gateways.add(GatewayInstance.start(GatewayInstance.defaults(redis, backend.baseUrl(), Map.of(
                    "max-active", Integer.toString(MAX_ACTIVE),
                    "session-ttl", "10m",
                    "promotion", "pubsub",
                    "complete-on", "POST /api/products/{productId}/orders"))));
        }
        connections = ConnectionProvider.builder("concurrent-test").maxConnections(USERS)
                .pendingAcquireMaxCount(-1).build();
        http = WebClient.builder()
                .clientConnector(new ReactorClientHttpConnector(HttpClient.create(connections)
                        .responseTimeout(Duration.ofSeconds(20))))
                .build();
    }

    @AfterAll
    static void stop() {
        if (connections != null) {
            connections.dispose();
        }
        GatewayInstance.closeAll(gateways);
        backend.stop();
        redis.close();
    }

    @Test
    void admitsExactlyMaxActiveAndRanksEveryoneElseWithoutGapsThenServesThemInRankOrder() {
        AtomicBoolean sampling = new AtomicBoolean(true);
        AtomicLong mostActiveSeen = new AtomicLong();
        Thread sampler = new Thread(() -> {
            while (sampling.get()) {
                mostActiveSeen.accumulateAndGet(redis.commands().zcard("qg:{42}:active"), Math::max);
            }
        });
        sampler.start();

        List<Joined> joined = Flux.range(0, USERS)
                .flatMap(i -> join("user-" + i, gateway(i)), USERS)
                .collectList()
                .block(Duration.ofSeconds(60));
        sampling.set(false);
        join(sampler);

        List<Joined> active = joined.stream().filter(j -> j.status == 200).toList();
        List<Joined> waiting = joined.stream().filter(j -> j.status == 429)
                .sorted(Comparator.comparingLong(Joined::rank)).collect(Collectors.toCollection(ArrayList::new));
        assertThat(active).hasSize(MAX_ACTIVE);
        assertThat(waiting).hasSize(USERS - MAX_ACTIVE);
        assertThat(waiting.stream().map(Joined::rank).toList())
                .containsExactlyElementsOf(LongStream.rangeClosed(1, USERS - MAX_ACTIVE).boxed().toList());
        assertThat(mostActiveSeen.get()).isLessThanOrEqualTo(MAX_ACTIVE);

        // Each completion, through any instance, lets in exactly the next in line.
        List<Joined> inside = new ArrayList<>(active);
        Random random = new Random(42);
        while (!waiting.isEmpty()) {
            Joined leaving = inside.remove(random.nextInt(inside.size()));
            assertThat(order(leaving, gateway(random.nextInt(3)))).isEqualTo(201);
            Joined next = waiting.remove(0);
            assertThat(redis.commands().zscore("qg:{42}:active", next.user)).as("rank %d let in", next.rank).isNotNull();
            // Another instance may answer from its view of the line, at most a second stale.
            GatewayInstance asked = gateway(random.nextInt(3));
            await().atMost(Duration.ofSeconds(2)).untilAsserted(() ->
                    assertThat(statusOf(next, asked)).as("status of rank %d", next.rank).isEqualTo("ACTIVE"));
            if (!waiting.isEmpty()) {
                assertThat(statusOf(waiting.get(0), gateway(random.nextInt(3)))).isEqualTo("WAITING");
            }
            inside.add(next);
            assertThat(redis.commands().zcard("qg:{42}:active")).isEqualTo(MAX_ACTIVE);
        }
    }

    private static GatewayInstance gateway(int i) {
        return gateways.get(Math.floorMod(i, gateways.size()));
    }

    private static Mono<Joined> join(String user, GatewayInstance gateway) {
        return http.get().uri(gateway.baseUrl() + "/api/products/42").header("X-User-Id", user)
                .exchangeToMono(response -> response.releaseBody().thenReturn(new Joined(user,
                        response.statusCode().value(),
                        Long.parseLong(orZero(response.headers().asHttpHeaders().getFirst("Queue-Rank"))),
                        response.headers().asHttpHeaders().getFirst("Queue-Token"))));
    }

    private static int order(Joined user, GatewayInstance gateway) {
        return http.post().uri(gateway.baseUrl() + "/api/products/42/orders").header("X-User-Id", user.user)
                .header("Queue-Token", user.token)
                .exchangeToMono(response -> response.releaseBody().thenReturn(response.statusCode()))
                .map(HttpStatusCode::value)
                .block(Duration.ofSeconds(10));
    }

    private static String statusOf(Joined user, GatewayInstance gateway) {
        String body = http.get().uri(gateway.baseUrl() + "/queue/42/status").header("X-User-Id", user.user)
                .header("Queue-Token", user.token).retrieve().bodyToMono(String.class).block(Duration.ofSeconds(10));
        return body.replaceAll(".*\"status\":\"([A-Z_]+)\".*", "$1");
    }

    private static String orZero(String value) {
        return value == null ? "0" : value;
    }

    private static void join(Thread thread) {
        try {
            thread.join();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private record Joined(String user, int status, long rank, String token) {
    }
}
