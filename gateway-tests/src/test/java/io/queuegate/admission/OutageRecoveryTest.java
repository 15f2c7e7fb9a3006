package io.queuegate.admission;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An ordinary outage under load with the default timeouts (Redis stopped for a few seconds, then
 * back with its data): once Redis has answered a shopper again, no request is refused for the
 * outage that ended. Calls made while the connection was down must not open the breaker after it
 * is back, whether Lettuce queues them (a shop's own client, untouched) or refuses them at once
 * ({@code queuegate.redis.fail-fast-when-disconnected}, as the runnable gateway sets it).
 */
class OutageRecoveryTest {

    private RedisProcess redis;
    private WireMockServer backend;
    private GatewayInstance gateway;
    private Disposable load;
    private final List<Outcome> outcomes = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (load != null) {
            load.dispose();
        }
        if (gateway != null) {
            gateway.close();
        }
        if (backend != null) {
            backend.stop();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @ParameterizedTest(name = "fail-fast-when-disconnected={0}")
    @ValueSource(booleans = { false, true })
    void noRequestIsRefusedForAnOutageThatEnded(boolean failFast) {
        redis = RedisProcess.startPersistent();
        backend = Backend.start();
        Map<String, Object> properties = GatewayInstance.defaults(redis, backend.baseUrl(), Map.of(
                "max-active", "2",
                "promotion", "pubsub",
                "on-redis-failure", "closed"));
        properties.put("queuegate.redis.fail-fast-when-disconnected", Boolean.toString(failFast));
        // The load joins without tokens from loopback, far above a minute's default limits.
        properties.put("queuegate.joins.max-per-address", "1000000");
        properties.put("queuegate.joins.max-per-caller", "1000000");
        gateway = GatewayInstance.start(properties);
        WebClient http = WebClient.builder().baseUrl(gateway.baseUrl())
                .clientConnector(new ReactorClientHttpConnector(HttpClient.create().responseTimeout(Duration.ofSeconds(10))))
                .build();
        load = Flux.interval(Duration.ofMillis(20))
                .onBackpressureDrop()
                .flatMap(i -> send(http, "shopper" + (i % 50)), 64)
                .subscribe(outcomes::add);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> outcomes.size() > 20);

        redis.stop();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> outcomes.stream().filter(o -> o.status == 503).count() > 20);
        Awaitility.await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> true);
        long restartedAt = System.nanoTime();
        redis.restart();
        Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> outcomes.stream().anyMatch(o -> o.at > restartedAt && o.status != 503));
        long firstSuccess = outcomes.stream().filter(o -> o.at > restartedAt && o.status != 503).mapToLong(o -> o.at)
                .min().orElseThrow();
        // Longer than the breaker's open-state wait (2 s) and the calls' timeout (2 s) together.
        Awaitility.await().pollDelay(Duration.ofMillis(4500)).atMost(Duration.ofSeconds(6)).until(() -> true);
        load.dispose();

        List<Outcome> after = outcomes.stream().filter(o -> o.sentAt > firstSuccess).toList();
        System.out.printf("fail-fast-when-disconnected=%s: first success %d ms after the restart; %d answers since, "
                + "by status %s%n", failFast, (firstSuccess - restartedAt) / 1_000_000, after.size(), after.stream()
                .collect(Collectors.groupingBy(Outcome::status, TreeMap::new, Collectors.counting())));
        assertThat(after).as("answers after the first success").hasSizeGreaterThan(100)
                .allSatisfy(o -> assertThat(o.status).as("no 503 for an outage that ended").isIn(200, 429));
    }

    private static Mono<Outcome> send(WebClient http, String user) {
        return Mono.defer(() -> {
            long sent = System.nanoTime();
            return http.get().uri("/api/products/42").header("X-User-Id", user)
                    .exchangeToMono(response -> response.releaseBody().thenReturn(response.statusCode().value()))
                    .map(status -> new Outcome(status, sent, System.nanoTime()));
        });
    }

    /** @param sentAt when the request was sent and {@code at} when its answer came (System.nanoTime) */
    private record Outcome(int status, long sentAt, long at) {
    }
}
