package io.queuegate.web;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;


import io.queuegate.support.GatewayFixture;
import io.queuegate.token.WaitTokenCodec;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Live updates and wait estimates through two gateway instances: a shopper's event stream on
 * one instance hears of the admission another instance made (through Redis, not by polling),
 * and the estimate given at rank N is close to the wait that shopper then really had.
 */
class LiveUpdatesTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.shopQueue(2)
            .with("queuegate.page.heartbeat", "30s")
            .with("queuegate.events.max-per-shopper", "2")
            .instances(2);

    @Test
    void theEventStreamOnOneInstanceHearsOfAnAdmissionMadeByAnother() {
        String alice = join(0, "alice");
        join(0, "bob");
        String carol = join(0, "carol");
        String dave = join(0, "dave");
        List<ServerSentEvent<String>> carols = new CopyOnWriteArrayList<>();
        List<ServerSentEvent<String>> daves = new CopyOnWriteArrayList<>();
        Disposable carolStream = events(1, "carol", carol).subscribe(carols::add);
        Disposable daveStream = events(1, "dave", dave).subscribe(daves::add);
        Awaitility.await().untilAsserted(() -> assertThat(carols).extracting(ServerSentEvent::event)
                .containsExactly("status"));
        assertThat(carols.get(0).data()).contains("\"rank\":1");

        // The heartbeat is 30 s: only the admission announcement can bring these events now.
        complete(0, "alice", alice);
        Awaitility.await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> {
            assertThat(carols).extracting(ServerSentEvent::event).containsExactly("status", "active");
            assertThat(daves).extracting(ServerSentEvent::event).containsExactly("status", "status");
        });
        assertThat(daves.get(1).data()).contains("\"rank\":1");
        carolStream.dispose();
        daveStream.dispose();
    }

    @Test
    void aStreamOnATokenWithoutTicketIsAnsweredByRedisAtOnce() {
        join(0, "alice");
        join(0, "bob");
        join(0, "carol");
        // As the previous release signed it: no ticket, so no instance can answer from its view.
        String old = fixture.gateway(1).bean(WaitTokenCodec.class).issue("42", "carol", false, null, null);
        List<ServerSentEvent<String>> carols = new CopyOnWriteArrayList<>();
        Disposable stream = events(1, "carol", old).subscribe(carols::add);
        try {
            Awaitility.await().atMost(Duration.ofSeconds(3)).untilAsserted(() ->
                    assertThat(carols).extracting(ServerSentEvent::event).containsExactly("status"));
            assertThat(carols.get(0).data()).contains("\"rank\":1");
        }
        finally {
            stream.dispose();
        }
    }

    @Test
    void oneShopperHoldsNoMoreStreamsOnAnInstanceThanAllowed() {
        join(0, "alice");
        join(0, "bob");
        String carol = join(0, "carol");
        List<Disposable> open = new CopyOnWriteArrayList<>();
        try {
            List<ServerSentEvent<String>> seen = new CopyOnWriteArrayList<>();
            open.add(events(1, "carol", carol).subscribe(seen::add));
            open.add(events(1, "carol", carol).subscribe(seen::add));
            Awaitility.await().untilAsserted(() -> assertThat(seen).hasSize(2));

            assertThatThrownBy(() -> events(1, "carol", carol).blockFirst(Duration.ofSeconds(5)))
                    .isInstanceOfSatisfying(WebClientResponseException.class, refused -> {
                        assertThat(refused.getStatusCode().value()).isEqualTo(429);
                        assertThat(refused.getResponseBodyAsString()).contains("too_many_streams");
                    });
            // The cap is per instance: the other one serves carol.
            assertThat(events(0, "carol", carol).blockFirst(Duration.ofSeconds(5))).isNotNull();
            // A stream that ends gives its place back.
            open.get(0).dispose();
            Awaitility.await().ignoreExceptions().untilAsserted(() ->
                    assertThat(events(1, "carol", carol).blockFirst(Duration.ofSeconds(5))).isNotNull());
        }
        finally {
            open.forEach(Disposable::dispose);
        }
    }

    @Test
    void theEventStreamNeedsAToken() {
        WebClient.create(fixture.gateway(0).baseUrl()).get().uri("/queue/42/events")
                .exchangeToMono(response -> {
                    assertThat(response.statusCode().value()).isEqualTo(401);
                    return response.releaseBody();
                })
                .block(Duration.ofSeconds(5));
    }

    @Test
    void theEstimateAtRankNIsWithinHalfOfTheRealWait() {
        List<String> users = new CopyOnWriteArrayList<>();
        List<String> tokens = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 2; i++) {
            users.add("u" + i);
            tokens.add(join(i % 2, "u" + i));
        }
        // One completion every 200 ms, through either instance: a steady 5 admissions a second,
        // from the start, while the others still join (they join faster than they are let in).
        List<Integer> inside = new CopyOnWriteArrayList<>(List.of(0, 1));
        int[] next = { 2 };
        Disposable pace = Flux.interval(Duration.ofMillis(200))
                // A completion slower than a tick (a busy machine) skips the tick, never ends the pace.
                .onBackpressureDrop()
                .concatMap(tick -> {
                    int leaving = inside.remove(0);
                    inside.add(next[0]++);
                    return completion((int) (tick % 2), users.get(leaving), tokens.get(leaving));
                })
                .subscribe();
        for (int i = 2; i < 80; i++) {
            users.add("u" + i);
            tokens.add(join(i % 2, "u" + i));
        }
        try {
            // Let the measured rate settle, then ask a shopper 20 places back for an estimate.
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> next[0] >= 30);
            int probe = next[0] + 19;
            String status = status(0, users.get(probe), tokens.get(probe));
            assertThat(status).contains("\"rank\":");
            long estimate = Long.parseLong(status.replaceAll(".*\"estimatedWaitSeconds\":(\\d+).*", "$1"));
            long asked = System.nanoTime();
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                    .until(() -> status(1, users.get(probe), tokens.get(probe)).contains("\"ACTIVE\""));
            double waited = (System.nanoTime() - asked) / 1e9;
            assertThat((double) estimate).as("estimate vs %.1f s really waited", waited)
                    .isBetween(waited * 0.5, waited * 1.5);
        }
        finally {
            pace.dispose();
        }
    }

    private Flux<ServerSentEvent<String>> events(int gateway, String user, String token) {
        return WebClient.create(fixture.gateway(gateway).baseUrl()).get().uri("/queue/42/events")
                .accept(MediaType.TEXT_EVENT_STREAM)
                .header("X-User-Id", user).header("Queue-Token", token)
                .retrieve()
                .bodyToFlux(new ParameterizedTypeReference<ServerSentEvent<String>>() { });
    }

    private static String join(int gateway, String user) {
        return WebClient.create(fixture.gateway(gateway).baseUrl()).get().uri("/api/products/42")
                .header("X-User-Id", user)
                .exchangeToMono(r -> r.releaseBody().thenReturn(r.headers().asHttpHeaders().getFirst("Queue-Token")))
                .block(Duration.ofSeconds(5));
    }

    private static void complete(int gateway, String user, String token) {
        completion(gateway, user, token).block(Duration.ofSeconds(5));
    }

    private static Mono<Void> completion(int gateway, String user, String token) {
        return WebClient.create(fixture.gateway(gateway).baseUrl()).post().uri("/api/products/42/orders")
                .header("X-User-Id", user).header("Queue-Token", token)
                .retrieve().toBodilessEntity().then();
    }

    private static String status(int gateway, String user, String token) {
        return WebClient.create(fixture.gateway(gateway).baseUrl()).get().uri("/queue/42/status")
                .header("X-User-Id", user).header("Queue-Token", token)
                .retrieve().bodyToMono(String.class).block(Duration.ofSeconds(5));
    }
}
