package io.queuegate.websocket;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.queuegate.room.AdminAction;
import io.queuegate.store.QueueScripts;
import io.queuegate.support.GatewayFixture;
import io.queuegate.support.GatewayInstance;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.WebTestClient;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.websocket.WebsocketInbound;
import reactor.netty.http.websocket.WebsocketOutbound;
import reactor.netty.resources.LoopResources;

import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A WebSocket on a protected route lives no longer than the session that let it in. A route that
 * does not take WebSockets refuses the upgrade ({@code 400 websocket_not_allowed}) before it makes
 * a place; one that does ({@code websocket: allow}) queues a waiting shopper's upgrade like any
 * request, and closes an admitted shopper's socket, and the shop's behind it, when the session
 * ends: a purchase or a leave (on another instance), an operator closing the room, the session's
 * time. A real WebSocket shop (Reactor Netty) and a real WebSocket client, through two gateways.
 */
class WebSocketSessionsTest {

    /** How soon a client must see its socket closed once the session ended. */
    private static final Duration BOUND = Duration.ofSeconds(5);

    private static final LoopResources SHOP_LOOPS = LoopResources.create("websocket-shop", 1, true);
    private static final AtomicInteger SHOP_OPENED = new AtomicInteger();
    private static final AtomicInteger SHOP_CLOSED = new AtomicInteger();
    /** A shop that echoes what it is sent, and counts the sockets it saw open and close. */
    private static final DisposableServer SHOP = HttpServer.create().host("127.0.0.1").port(0).runOn(SHOP_LOOPS)
            .route(routes -> routes.ws("/live/{productId}", WebSocketSessionsTest::echo)
                    .ws("/refusing/{productId}", WebSocketSessionsTest::echo)
                    .ws("/open-ws", WebSocketSessionsTest::echo))
            .bindNow();
    private static final String SHOP_URL = "http://127.0.0.1:" + SHOP.port();

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.shopQueue(1)
            .withRoute("live", Map.of("uri", SHOP_URL, "predicates[0]", "Path=/live/{productId}",
                    "metadata.queue.max-active", "1", "metadata.queue.session-ttl", "10m",
                    "metadata.queue.websocket", "allow"))
            // Protected, with the default: no WebSockets.
            .withRoute("refusing", Map.of("uri", SHOP_URL, "predicates[0]", "Path=/refusing/{productId}",
                    "metadata.queue.max-active", "1", "metadata.queue.session-ttl", "10m"))
            .withRoute("open-ws", Map.of("uri", SHOP_URL, "predicates[0]", "Path=/open-ws"))
            // A product whose sessions last two seconds.
            .with("queuegate.products.brief.session-ttl", "2s")
            .instances(2);

    private final List<Client> clients = new CopyOnWriteArrayList<>();

    @AfterEach
    void disconnect() {
        clients.forEach(client -> client.connection.dispose());
    }

    @AfterAll
    static void stopShop() {
        SHOP.disposeNow();
        SHOP_LOOPS.disposeLater().block(Duration.ofSeconds(5));
    }

    /** The attack: an admitted shopper's socket on a protected route that never said it takes them. */
    @ParameterizedTest
    @ValueSource(strings = { "websocket", "WebSocket", "websocket/13", "h2c, websocket" })
    void anUpgradeOnAProtectedRouteThatTakesNoneIsRefusedBeforeAnyPlaceIsMade(String upgrade) {
        upgrade(fixture.gateway(0), "/refusing/7", "alice", null).header("Upgrade", upgrade).exchange()
                .expectStatus().isBadRequest()
                .expectBody().jsonPath("$.error").isEqualTo("websocket_not_allowed");
        upgrade(fixture.gateway(0), "/api/products/7/ws", "alice", null).exchange()
                .expectStatus().isBadRequest()
                .expectBody().jsonPath("$.error").isEqualTo("websocket_not_allowed");

        assertThat(fixture.redis().commands().keys("qg:{7}:*")).as("no place made").isEmpty();
        fixture.backend().verify(0, anyRequestedFor(anyUrl()));
        Client client = connect(fixture.gateway(0), "/refusing/7", "alice", null);
        Awaitility.await().atMost(BOUND).until(() -> client.failure.get() != null);
        assertThat(client.failure.get()).hasMessageContaining("400");
    }

    @Test
    void anUpgradeOnAnUnprotectedRouteIsUntouched() {
        Client client = connect(fixture.gateway(0), "/open-ws", "alice", null);
        client.send("hello");
        Awaitility.await().atMost(BOUND).until(() -> client.received.contains("echo hello"));
    }

    @Test
    void aWaitingShoppersUpgradeIsQueuedLikeAnyRequest() {
        admit("alice", "7");
        upgrade(fixture.gateway(0), "/live/7", "bob", null).exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().valueEquals("Queue-Rank", "1");
    }

    @Test
    void theSocketClosesWhenItsSessionCompletesOnAnotherInstance() {
        String alice = admit("alice", "7");
        String carol = admit("carol", "8");
        Client socket = connected(alice, "alice", "7");

        // Another session's purchase leaves this socket open.
        fixture.gateway(1).client().post().uri("/api/products/8/orders").header("X-User-Id", "carol")
                .header("Queue-Token", carol).exchange().expectStatus().isCreated();
        socket.send("still there?");
        Awaitility.await().atMost(BOUND).until(() -> socket.received.contains("echo still there?"));

        fixture.gateway(1).client().post().uri("/api/products/7/orders").header("X-User-Id", "alice")
                .header("Queue-Token", alice).exchange().expectStatus().isCreated();

        closedWithinTheBound(socket);
    }

    @Test
    void theSocketClosesWhenItsShopperLeavesOnAnotherInstance() {
        String alice = admit("alice", "7");
        Client socket = connected(alice, "alice", "7");

        fixture.gateway(1).client().delete().uri("/queue/7").header("X-User-Id", "alice")
                .header("Queue-Token", alice).exchange().expectStatus().is2xxSuccessful();

        closedWithinTheBound(socket);
    }

    @Test
    void theSocketClosesWhenAnOperatorClosesTheRoom() {
        String alice = admit("alice", "7");
        Client socket = connected(alice, "alice", "7");

        fixture.gateway(1).bean(QueueScripts.class).admin().run("7", AdminAction.MODE, "closed",
                System.currentTimeMillis()).block(Duration.ofSeconds(5));

        closedWithinTheBound(socket);
    }

    @Test
    void theSocketClosesWhenItsSessionRunsOut() {
        String alice = admit("alice", "brief");
        Client socket = connected(alice, "alice", "brief");

        // Two seconds from the admission, and nobody said anything.
        closedWithinTheBound(socket);
    }

    /** Admits {@code user} to {@code product} through the first gateway, and returns their token. */
    private static String admit(String user, String product) {
        return fixture.gateway(0).client().get().uri("/api/products/" + product).header("X-User-Id", user).exchange()
                .expectStatus().isOk().returnResult(String.class).getResponseHeaders().getFirst("Queue-Token");
    }

    /** A socket of the admitted {@code user} through the first gateway, shown to reach the shop. */
    private Client connected(String token, String user, String product) {
        int before = SHOP_OPENED.get();
        Client socket = connect(fixture.gateway(0), "/live/" + product, user, token);
        socket.send("hello");
        Awaitility.await().atMost(BOUND).until(() -> socket.received.contains("echo hello"));
        assertThat(SHOP_OPENED.get()).isGreaterThan(before);
        return socket;
    }

    private static void closedWithinTheBound(Client socket) {
        int opened = SHOP_OPENED.get();
        Awaitility.await().atMost(BOUND).untilAsserted(() -> {
            assertThat(socket.closeStatus.get()).isNotNull();
            assertThat(socket.closeStatus.get().code()).isEqualTo(OpenSockets.CLOSE_STATUS);
            assertThat(socket.closeStatus.get().reasonText()).isEqualTo(OpenSockets.CLOSE_REASON);
        });
        Awaitility.await().atMost(BOUND).until(() -> socket.ended.get() != null);
        // The shop's side goes with it.
        Awaitility.await().atMost(BOUND).until(() -> SHOP_CLOSED.get() == opened);
    }

    /** A WebSocket handshake's request, through WebTestClient (whose answer the test reads). */
    private static WebTestClient.RequestHeadersSpec<?> upgrade(GatewayInstance gateway, String path, String user,
            String token) {
        WebTestClient.RequestHeadersSpec<?> request = gateway.client().get().uri(path).header("X-User-Id", user)
                .header("Upgrade", "websocket").header("Connection", "Upgrade")
                .header("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==").header("Sec-WebSocket-Version", "13");
        return token == null ? request : request.header("Queue-Token", token);
    }

    private Client connect(GatewayInstance gateway, String path, String user, String token) {
        Client client = new Client();
        client.connection = HttpClient.create()
                .headers(headers -> {
                    headers.set("X-User-Id", user);
                    if (token != null) {
                        headers.set("Queue-Token", token);
                    }
                })
                .websocket().uri("ws://127.0.0.1:" + gateway.port() + path)
                .handle((in, out) -> {
                    in.receiveCloseStatus().subscribe(client.closeStatus::set);
                    return Flux.merge(out.sendString(client.outgoing.asFlux()).then(),
                            in.receive().asString().doOnNext(client.received::add).then());
                })
                .doFinally(signal -> client.ended.set(signal.toString()))
                .subscribe(null, client.failure::set);
        clients.add(client);
        return client;
    }

    private static reactor.core.publisher.Mono<Void> echo(WebsocketInbound in, WebsocketOutbound out) {
        SHOP_OPENED.incrementAndGet();
        return out.sendString(in.receive().asString().map(text -> "echo " + text))
                .then().doFinally(signal -> SHOP_CLOSED.incrementAndGet());
    }

    /** One client socket: what it sent and received, and how it ended. */
    private static final class Client {

        final Sinks.Many<String> outgoing = Sinks.many().unicast().onBackpressureBuffer();
        final List<String> received = new CopyOnWriteArrayList<>();
        final AtomicReference<WebSocketCloseStatus> closeStatus = new AtomicReference<>();
        final AtomicReference<String> ended = new AtomicReference<>();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        Disposable connection;

        void send(String text) {
            outgoing.tryEmitNext(text);
        }
    }
}
