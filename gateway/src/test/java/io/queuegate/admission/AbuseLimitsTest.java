package io.queuegate.admission;

import java.util.Map;

import io.queuegate.support.Lines;
import io.queuegate.support.GatewayFixture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.WebTestClient;

import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One client cannot mint unbounded places or queues: joins without a token are counted per
 * caller (user id, else client address behind trusted proxies), and queues nobody visits expire.
 */
class AbuseLimitsTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1", "session-ttl", "10m"))
            .with("queuegate.joins.max-per-caller", "3")
            .with("queuegate.joins.window", "1m")
            .with("queuegate.joins.trusted-proxies[0]", "127.0.0.1")
            .with("queuegate.token.ttl", "2h")
            .with("queuegate.max-body-size", "1KB");

    @Test
    void anAnonymousClientAboveTheLimitGetsTooManyJoinsAndNoMorePlaces() {
        String token = null;
        for (int i = 0; i < 3; i++) {
            token = anonymousJoin("203.0.113.7").expectBody().returnResult().getResponseHeaders().getFirst("Queue-Token");
        }
        anonymousJoin("203.0.113.7").expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().exists("Retry-After")
                .expectBody().jsonPath("$.error").isEqualTo("too_many_joins");
        assertThat(Lines.of(fixture.redis().commands(), "42").size() + fixture.redis().commands().zcard("qg:{42}:active")).isEqualTo(3);
        // Polling with the token one got is not a join and is never limited.
        fixture.client().get().uri("/api/products/42").header("Queue-Token", token).header("X-Forwarded-For", "203.0.113.7")
                .exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectBody().jsonPath("$.status").isEqualTo("WAITING");
        // Another client behind the same trusted proxy has its own count.
        anonymousJoin("198.51.100.1").expectBody().jsonPath("$.status").isEqualTo("WAITING");
    }

    @Test
    void aClientCannotPickItsAddressPastTheTrustedProxy() {
        // The proxy appends the address it saw; what the client wrote before it is not believed.
        for (int i = 0; i < 3; i++) {
            fixture.client().get().uri("/api/products/42").header("X-Forwarded-For", "10.9.9." + i + ", 203.0.113.9")
                    .exchange().expectStatus().value(status -> assertThat(status).isIn(200, 429));
        }
        fixture.client().get().uri("/api/products/42").header("X-Forwarded-For", "10.9.9.99, 203.0.113.9").exchange()
                .expectBody().jsonPath("$.error").isEqualTo("too_many_joins");
    }

    @Test
    void aSignedInUserCannotCreateUnboundedQueues() {
        for (int i = 0; i < 3; i++) {
            fixture.client().get().uri("/api/products/p" + i).header("X-User-Id", "mallory").exchange()
                    .expectStatus().isOk();
        }
        fixture.client().get().uri("/api/products/p3").header("X-User-Id", "mallory").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectBody().jsonPath("$.error").isEqualTo("too_many_joins");
        assertThat(fixture.redis().commands().keys("qg:{p3}:*")).isEmpty();
    }

    @Test
    void queuesNobodyVisitsExpireOnTheirOwn() {
        fixture.client().get().uri("/api/products/42").header("X-User-Id", "alice").exchange().expectStatus().isOk();
        fixture.client().get().uri("/api/products/42").header("X-User-Id", "bob").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
        long expected = java.time.Duration.ofHours(2).plusMinutes(10).toMillis();
        for (String key : new String[] { "qg:{42}:line:0", "qg:{42}:active", "qg:{42}:seq", "qg:{42}:settings" }) {
            assertThat(fixture.redis().commands().pttl(key)).as(key).isBetween(expected - 60_000, expected);
        }
    }

    @Test
    void anOversizedBodyIsRefusedBeforeRedisOrTheShop() {
        fixture.client().post().uri("/api/products/42/orders").header("X-User-Id", "alice")
                .bodyValue("x".repeat(2048)).exchange()
                .expectStatus().isEqualTo(HttpStatus.CONTENT_TOO_LARGE)
                .expectBody().jsonPath("$.error").isEqualTo("content_too_large");
        // The product's keys only: a batch of registrations from an earlier test may land any time.
        assertThat(fixture.redis().commands().keys("qg:{42}*")).isEmpty();
        fixture.backend().verify(0, anyRequestedFor(anyUrl()));
    }

    private WebTestClient.ResponseSpec anonymousJoin(String clientAddress) {
        return fixture.client().get().uri("/api/products/42").header("X-Forwarded-For", clientAddress).exchange();
    }
}
