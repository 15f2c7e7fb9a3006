package io.queuegate.admission;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.github.tomakehurst.wiremock.client.WireMock;
import com.github.tomakehurst.wiremock.stubbing.StubMapping;
import io.queuegate.support.GatewayFixture;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.client.WebClient;

import reactor.core.Disposable;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A shop that sells out while shoppers wait, through two gateways on one Redis: nobody is admitted
 * once the stock is promised, every waiting shopper's live stream hears "sold out" wherever the
 * stock ran out (how soon: bench/run sold-out), and a restock serves those still in line in their
 * order. The shop's
 * {@code Queue-Stock} header is between the shop and the gateway, both ways.
 */
class StockTest {

    private static final String ORDERS = "/api/products/42/orders";

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.shopQueue(2)
            .with("queuegate.products.42.stock", "3")
            .with("queuegate.page.heartbeat", "30s")
            .with("management.endpoints.web.exposure.include", "health,queues")
            .instances(2);

    private final List<StubMapping> stubs = new CopyOnWriteArrayList<>();
    private final List<Disposable> streams = new CopyOnWriteArrayList<>();

    @AfterEach
    void removeStubsAndStreams() {
        stubs.forEach(fixture.backend()::removeStub);
        streams.forEach(Disposable::dispose);
    }

    @Test
    void nobodyIsAdmittedBeyondTheStockEveryWaitingShopperHearsSoldOutAndARestockServesTheLineInOrder() {
        String alice = token(get(0, "alice", null));
        String bob = token(get(1, "bob", null));
        ResponseEntity<String> carolWaits = get(0, "carol", null);
        ResponseEntity<String> daveWaits = get(1, "dave", null);
        ResponseEntity<String> erinWaits = get(0, "erin", null);
        assertThat(carolWaits.getStatusCode().value()).isEqualTo(429);
        assertThat(carolWaits.getBody()).contains("\"rank\":1", "\"stock\":3", "\"withinStock\":true");
        assertThat(daveWaits.getBody()).as("2 carts and carol's take the 3 units")
                .contains("\"rank\":2", "\"stock\":3", "\"withinStock\":false");
        String carol = token(carolWaits);
        String dave = token(daveWaits);
        String erin = token(erinWaits);
        List<ServerSentEvent<String>> carols = listen(1, "carol", carol);
        List<ServerSentEvent<String>> daves = listen(0, "dave", dave);
        List<ServerSentEvent<String>> erins = listen(1, "erin", erin);
        Awaitility.await().untilAsserted(() -> assertThat(erins).extracting(ServerSentEvent::event).contains("status"));

        // Alice buys; the shop says nothing, so the configured stock counts down to 2: bob's cart
        // and one more. Carol is admitted, nobody else.
        assertThat(order(0, "alice", alice).getStatusCode().is2xxSuccessful()).isTrue();
        Awaitility.await().atMost(Duration.ofSeconds(3)).untilAsserted(() ->
                assertThat(carols).extracting(ServerSentEvent::event).contains("active"));
        assertThat(get(1, "dave", dave).getStatusCode().value()).as("2 units left, 2 carts: dave waits").isEqualTo(429);

        // Bob buys, and the shop says none is left (it sold the rest elsewhere): sold out on
        // gateway 1, heard on both within two seconds.
        stubs.add(fixture.backend().stubFor(post(urlPathEqualTo(ORDERS)).atPriority(1)
                .willReturn(aResponse().withStatus(201).withHeader("Queue-Stock", "0").withBody("{}"))));
        ResponseEntity<String> bobBought = order(1, "bob", bob);
        assertThat(bobBought.getStatusCode().value()).isEqualTo(201);
        assertThat(bobBought.getHeaders().containsHeader("Queue-Stock")).as("shoppers never see it").isFalse();
        // The heartbeat is 30 s: only the sell-out itself can bring these events now. How soon it
        // does (the 2 s) is bench/run sold-out's figure, not a timed test's.
        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(daves).extracting(ServerSentEvent::event).endsWith("sold_out");
            assertThat(erins).extracting(ServerSentEvent::event).endsWith("sold_out");
        });
        assertThat(daves.get(daves.size() - 1).data()).contains("\"status\":\"SOLD_OUT\"", "\"stock\":0");

        ResponseEntity<String> davePolls = get(0, "dave", dave);
        assertThat(davePolls.getStatusCode().value()).isEqualTo(410);
        assertThat(davePolls.getBody()).contains("\"error\":\"sold_out\"");
        assertThat(get(1, "frank", null).getStatusCode().value()).as("nobody new").isEqualTo(410);
        assertThat(get(0, "carol", carol).getStatusCode().value()).as("the admitted finish").isEqualTo(200);
        assertThat(status(1, "erin", erin)).contains("\"status\":\"SOLD_OUT\"");
        assertThat(queue()).contains("\"left\":0", "\"source\":\"shop\"", "\"soldOutAt\"");

        // A restock: dave first (carol still holds her cart), erin behind him, frank held nothing.
        String restocked = WebClient.create(fixture.gateway(0).baseUrl()).post().uri("/actuator/queues/42")
                .contentType(MediaType.APPLICATION_JSON).bodyValue("{\"action\":\"stock\",\"value\":\"5\"}")
                .retrieve().bodyToMono(String.class).block(Duration.ofSeconds(5));
        assertThat(restocked).contains("\"promoted\":1", "\"left\":5");
        Awaitility.await().atMost(Duration.ofSeconds(3)).untilAsserted(() ->
                assertThat(status(1, "dave", dave)).contains("\"status\":\"ACTIVE\""));
        assertThat(get(1, "erin", erin).getBody()).contains("\"rank\":1", "\"stock\":5");
    }

    @Test
    void aClientCannotSendTheStockToTheShopNorLowerItAndTheShopsNewerWordMovesItEitherWay() {
        String alice = token(get(0, "alice", null));
        WebClient.create(fixture.gateway(0).baseUrl()).get().uri("/api/products/42")
                .header("X-User-Id", "alice").header("Queue-Token", alice).header("Queue-Stock", "0")
                .retrieve().toBodilessEntity().block(Duration.ofSeconds(5));
        fixture.backend().verify(WireMock.getRequestedFor(urlPathEqualTo("/api/products/42"))
                .withoutHeader("Queue-Stock"));
        assertThat(queue()).as("a client's header lowers nothing").contains("\"left\":3");

        stubs.add(fixture.backend().stubFor(WireMock.get(urlPathEqualTo("/api/products/42")).atPriority(1)
                .willReturn(aResponse().withStatus(200).withHeader("Queue-Stock", "2").withBody("{}"))));
        get(1, "alice", alice);
        Awaitility.await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(queue()).contains("\"left\":2"));
        fixture.backend().removeStub(stubs.remove(0));
        stubs.add(fixture.backend().stubFor(WireMock.get(urlPathEqualTo("/api/products/42")).atPriority(1)
                .willReturn(aResponse().withStatus(200).withHeader("Queue-Stock", "9").withBody("{}"))));
        get(0, "alice", alice);
        Awaitility.await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(queue())
                .as("a newer answer that says more: the shop restocked").contains("\"left\":9"));
    }

    private static ResponseEntity<String> get(int gateway, String user, String token) {
        WebClient.RequestHeadersSpec<?> request = WebClient.create(fixture.gateway(gateway).baseUrl()).get()
                .uri("/api/products/42").accept(MediaType.APPLICATION_JSON).header("X-User-Id", user);
        if (token != null) {
            request = request.header("Queue-Token", token);
        }
        return request.exchangeToMono(response -> response.toEntity(String.class)).block(Duration.ofSeconds(5));
    }

    private static ResponseEntity<String> order(int gateway, String user, String token) {
        return WebClient.create(fixture.gateway(gateway).baseUrl()).post().uri(ORDERS)
                .header("X-User-Id", user).header("Queue-Token", token)
                .exchangeToMono(response -> response.toEntity(String.class)).block(Duration.ofSeconds(5));
    }

    private static String token(ResponseEntity<String> answer) {
        return answer.getHeaders().getFirst("Queue-Token");
    }

    private static String status(int gateway, String user, String token) {
        return WebClient.create(fixture.gateway(gateway).baseUrl()).get().uri("/queue/42/status")
                .header("X-User-Id", user).header("Queue-Token", token)
                .retrieve().bodyToMono(String.class).block(Duration.ofSeconds(5));
    }

    private static String queue() {
        return WebClient.create(fixture.gateway(1).baseUrl()).get().uri("/actuator/queues/42")
                .retrieve().bodyToMono(String.class).block(Duration.ofSeconds(5));
    }

    private List<ServerSentEvent<String>> listen(int gateway, String user, String token) {
        List<ServerSentEvent<String>> events = new CopyOnWriteArrayList<>();
        streams.add(WebClient.create(fixture.gateway(gateway).baseUrl()).get().uri("/queue/42/events")
                .accept(MediaType.TEXT_EVENT_STREAM).header("X-User-Id", user).header("Queue-Token", token)
                .retrieve().bodyToFlux(new ParameterizedTypeReference<ServerSentEvent<String>>() { })
                .subscribe(events::add));
        return events;
    }
}
