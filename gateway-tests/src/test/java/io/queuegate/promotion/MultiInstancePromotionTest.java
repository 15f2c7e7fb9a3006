package io.queuegate.promotion;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.support.Lines;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The invariant of every strategy, proven on three gateway instances sharing one real Redis:
 * 300 users join through random instances; once admitted, a third complete an order, a third
 * leave, and every twentieth walks away so its session expires. A sampler reads the queue
 * atomically all along: the active set never exceeds max-active, nobody is admitted while
 * someone who joined earlier still waits, and at the end every user was served.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MultiInstancePromotionTest {

    private static final int USERS = 300;
    private static final int MAX_ACTIVE = 5;

    private RedisProcess redis;
    private WireMockServer backend;
    private final List<GatewayInstance> gateways = new ArrayList<>();
    private ConnectionProvider connections;
    private WebClient http;

    @BeforeAll
    void start() {
        redis = RedisProcess.start();
        backend = Backend.start();
        for (int i = 0; i < 3; i++) {
            Map<String, Object> properties = GatewayInstance.defaults(redis, backend.baseUrl(), Map.of(
                    "max-active", Integer.toString(MAX_ACTIVE),
                    "session-ttl", "3s",
                    "promotion", "scheduler",
                    "complete-on", "POST /api/products/{productId}/orders"));
            for (String strategy : List.of("pubsub", "keyspace", "stream")) {
                properties.put("queuegate.products.p-" + strategy + ".promotion", strategy);
            }
            properties.put("queuegate.scheduler.interval", "200ms");
            properties.put("queuegate.safety-net.interval", "1s");
            properties.put("queuegate.stream.claim-idle", "1s");
            // 300 users on three gateways share two cores here: a slow moment is not a Redis outage.
            properties.put("queuegate.redis.timeout", "5s");
            properties.put("spring.data.redis.timeout", "5s");
            gateways.add(GatewayInstance.start(properties));
        }
        connections = ConnectionProvider.builder("multi-instance").maxConnections(400).pendingAcquireMaxCount(-1)
                .build();
        http = WebClient.builder().clientConnector(new ReactorClientHttpConnector(
                HttpClient.create(connections).responseTimeout(Duration.ofSeconds(10)))).build();
    }

    @AfterAll
    void stop() {
        if (connections != null) {
            connections.dispose();
        }
        GatewayInstance.closeAll(gateways);
        backend.stop();
        redis.close();
    }

    @BeforeEach
    void emptyQueues() {
        redis.flushAll();
    }

    @ParameterizedTest
    @ValueSource(strings = { "scheduler", "pubsub", "keyspace", "stream" })
    void neverAdmitsBeyondMaxActiveNorOutOfOrderAndServesEveryone(String strategy) {
        String product = "p-" + strategy;
        Sampler sampler = new Sampler(redis.commands(), product);
        sampler.start();

        // Joins one after another, so join order is known, each through a random instance; each
        // user then waits for their turn at once, polling random instances, while others still join.
        List<User> users = new java.util.concurrent.CopyOnWriteArrayList<>();
        Flux.range(0, USERS)
                .concatMap(i -> join(product, "u" + i, i))
                .doOnNext(users::add)
                .flatMap(user -> serve(product, user), USERS)
                .blockLast(Duration.ofSeconds(150));
        sampler.stop();

        assertThat(sampler.violations).as("order violations").isEmpty();
        assertThat(sampler.mostActive.get()).as("most active seen").isLessThanOrEqualTo(MAX_ACTIVE);
        assertThat(sampler.samples.get()).as("samples taken").isGreaterThan(100);
        assertThat(users).hasSize(USERS)
                .allSatisfy(user -> assertThat(user.admitted.get()).as(user.id + " served").isTrue());
        assertThat(Lines.of(redis.commands(), product)).isEmpty();
    }

    @Test
    void keyspaceExpiriesMissedWhileNobodyListenedAreFoundWithinOneSafetyNetPeriod() {
        String product = "p-keyspace";
        gateways.forEach(gateway -> gateway.bean(PromotionListeners.class).stopAll());
        try {
            for (int i = 0; i < MAX_ACTIVE + 3; i++) {
                join(product, "k" + i, i).block();
            }
            // Every session ends (3 s) with no listener anywhere; the 1 s safety net must refill.
            Awaitility.await().atMost(Duration.ofSeconds(3 + 2)).untilAsserted(() ->
                    assertThat(Lines.of(redis.commands(), product)).isEmpty());
            assertThat(redis.commands().zcard("qg:{" + product + "}:active")).isLessThanOrEqualTo(MAX_ACTIVE);
        }
        finally {
            gateways.forEach(gateway -> gateway.bean(PromotionListeners.class)
                    .startFor(Set.of(io.queuegate.config.Promotion.values())).block());
        }
    }

    @Test
    void aStreamEventReadByAnInstanceThatDiedIsHandledByAnother() {
        String product = "p-stream";
        for (int i = 0; i < MAX_ACTIVE + 1; i++) {
            join(product, "s" + i, i).block();
        }
        RedisCommands<String, String> commands = redis.commands();
        // The live instances pause, so that the instance about to die is the one that reads.
        gateways.forEach(gateway -> gateway.bean(PromotionListeners.class).stopAll());
        // A read already blocked in Redis when the subscription stopped would still take the event.
        Awaitility.await().atMost(Duration.ofSeconds(5))
                .until(() -> !commands.clientList().contains("cmd=xreadgroup"));
        commands.zrem("qg:{" + product + "}:active", "s0");
        // The group as every instance creates it on start (flushed with the rest before this test).
        try {
            commands.xgroupCreate(io.lettuce.core.XReadArgs.StreamOffset.from("qg:slot-events", "0"),
                    SlotEventConsumer.GROUP, io.lettuce.core.XGroupCreateArgs.Builder.mkstream());
        }
        catch (io.lettuce.core.RedisBusyException alreadyRecreatedByAnInstance) {
            // fine: the group exists either way
        }
        String eventId = commands.xadd("qg:slot-events", Map.of("pid", product));
        var taken = commands.xreadgroup(io.lettuce.core.Consumer.from(SlotEventConsumer.GROUP, "dead-instance"),
                io.lettuce.core.XReadArgs.StreamOffset.lastConsumed("qg:slot-events"));
        assertThat(taken).extracting(message -> message.getId()).containsExactly(eventId);
        assertThat(commands.zscore("qg:{" + product + "}:active", "s" + MAX_ACTIVE)).isNull();
        // It dies without acknowledging; the others come back and must take the event over.
        gateways.forEach(gateway -> gateway.bean(PromotionListeners.class)
                .startFor(Set.of(io.queuegate.config.Promotion.STREAM)).block());

        Awaitility.await().atMost(Duration.ofSeconds(6)).untilAsserted(() -> {
            assertThat(commands.zscore("qg:{" + product + "}:active", "s" + MAX_ACTIVE)).isNotNull();
            assertThat(commands.xpending("qg:slot-events", SlotEventConsumer.GROUP).getCount()).isZero();
        });
    }

    private Mono<User> join(String product, String id, int order) {
        GatewayInstance gateway = randomGateway();
        return http.get().uri(gateway.baseUrl() + "/api/products/" + product).header("X-User-Id", id)
                .exchangeToMono(response -> {
                    String token = response.headers().asHttpHeaders().getFirst("Queue-Token");
                    assertThat(token).as("token of %s (status %s)", id, response.statusCode()).isNotNull();
                    return response.releaseBody().thenReturn(new User(id, order, token,
                            response.statusCode().value() == 200));
                });
    }

    /** Polls until admitted, then completes, leaves or walks away, by the user's join order. */
    private Mono<Void> serve(String product, User user) {
        Mono<String> status = Mono.defer(() -> http.get()
                .uri(randomGateway().baseUrl() + "/queue/" + product + "/status")
                .header("X-User-Id", user.id).header("Queue-Token", user.token)
                .retrieve().bodyToMono(String.class));
        Mono<Void> waitForTurn = user.admitted.get() ? Mono.empty() : status
                .flatMap(body -> {
                    if (body.contains("\"ACTIVE\"")) {
                        user.admitted.set(true);
                        return Mono.just(body);
                    }
                    if (body.contains("\"NOT_FOUND\"")) {
                        return Mono.error(new AssertionError(user.id + " was lost from the queue"));
                    }
                    long rank = Long.parseLong(body.replaceAll(".*\"rank\":(\\d+).*", "$1"));
                    return Mono.<String>empty().delaySubscription(Duration.ofMillis(rank <= 10 ? 30 : 300));
                })
                .repeatWhenEmpty(Integer.MAX_VALUE, repeats -> repeats)
                .then();
        return waitForTurn.then(Mono.defer(() -> finish(product, user)));
    }

    private Mono<Void> finish(String product, User user) {
        if (user.order % 20 == 19) {
            return Mono.empty(); // walks away: the session expires
        }
        GatewayInstance gateway = randomGateway();
        if (user.order % 2 == 0) {
            return http.post().uri(gateway.baseUrl() + "/api/products/" + product + "/orders")
                    .header("X-User-Id", user.id).header("Queue-Token", user.token)
                    .exchangeToMono(response -> {
                        assertThat(response.statusCode().value()).as("order of " + user.id).isEqualTo(201);
                        return response.releaseBody();
                    });
        }
        return http.delete().uri(gateway.baseUrl() + "/queue/" + product)
                .header("X-User-Id", user.id).header("Queue-Token", user.token)
                .exchangeToMono(response -> response.releaseBody());
    }

    private GatewayInstance randomGateway() {
        return gateways.get(ThreadLocalRandom.current().nextInt(gateways.size()));
    }

    private static final class User {
        final String id;
        final int order;
        final String token;
        final AtomicBoolean admitted;

        User(String id, int order, String token, boolean admitted) {
            this.id = id;
            this.order = order;
            this.token = token;
            this.admitted = new AtomicBoolean(admitted);
        }
    }

    /**
     * Reads active set and head of line in one MULTI, continuously, on its own thread: every
     * active user must have joined before the first one still waiting.
     */
    private static final class Sampler {

        private final RedisCommands<String, String> commands;
        private final String product;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicLong mostActive = new AtomicLong();
        private final AtomicLong samples = new AtomicLong();
        private final Set<String> violations = ConcurrentHashMap.newKeySet();
        private final AtomicReference<Thread> thread = new AtomicReference<>();

        Sampler(RedisCommands<String, String> commands, String product) {
            this.commands = commands;
            this.product = product;
        }

        void start() {
            Thread sampler = new Thread(() -> {
                while (running.get()) {
                    sample();
                }
            }, "sampler-" + product);
            thread.set(sampler);
            sampler.start();
        }

        @SuppressWarnings("unchecked")
        private void sample() {
            TransactionResult snapshot;
            synchronized (commands) {
                commands.multi();
                commands.zrange("qg:{" + product + "}:active", 0, -1);
                commands.eval(Lines.script(), ScriptOutputType.MULTI, Lines.keys(product), product,
                        io.queuegate.support.Scripts.EPOCH, "1");
                snapshot = commands.exec();
            }
            List<String> active = (List<String>) snapshot.get(0);
            List<String> head = (List<String>) snapshot.get(1);
            samples.incrementAndGet();
            mostActive.accumulateAndGet(active.size(), Math::max);
            if (!head.isEmpty()) {
                int firstWaiting = order(head.get(0));
                active.stream().filter(user -> order(user) > firstWaiting)
                        .forEach(user -> violations.add(user + " active while " + head.get(0) + " waits"));
            }
        }

        void stop() {
            running.set(false);
            try {
                thread.get().join();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }

        private static int order(String user) {
            return Integer.parseInt(user.substring(1));
        }
    }
}
