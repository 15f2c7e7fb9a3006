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
 * client address (behind trusted proxies, an IPv6 /64 as one) and per identified user, and queues
 * nobody visits expire. Each test speaks from an address of its own, since the counts are the
 * gateway's and outlive a test.
 */
class AbuseLimitsTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1", "session-ttl", "10m"))
            .with("queuegate.joins.max-per-caller", "3")
            .with("queuegate.joins.max-per-address", "5")
            .with("queuegate.joins.window", "1m")
            .with("queuegate.token.ttl", "2h")
            .with("queuegate.max-body-size", "1KB");

    @Test
    void anAnonymousClientAboveTheLimitGetsTooManyJoinsAndNoMorePlaces() {
        String token = null;
        for (int i = 0; i < 5; i++) {
            token = anonymousJoin("203.0.113.7").expectBody().returnResult().getResponseHeaders().getFirst("Queue-Token");
        }
        anonymousJoin("203.0.113.7").expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().exists("Retry-After")
                .expectBody().jsonPath("$.error").isEqualTo("too_many_joins");
        assertThat(Lines.of(fixture.redis().commands(), "42").size() + fixture.redis().commands().zcard("qg:{42}:active")).isEqualTo(5);
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
        for (int i = 0; i < 5; i++) {
            fixture.client().get().uri("/api/products/42").header("X-Forwarded-For", "10.9.9." + i + ", 203.0.113.9")
                    .exchange().expectStatus().value(status -> assertThat(status).isIn(200, 429));
        }
        fixture.client().get().uri("/api/products/42").header("X-Forwarded-For", "10.9.9.99, 203.0.113.9").exchange()
                .expectBody().jsonPath("$.error").isEqualTo("too_many_joins");
    }

    @Test
    void aSignedInUserCannotCreateUnboundedQueues() {
        for (int i = 0; i < 3; i++) {
            fixture.client().get().uri("/api/products/p" + i).header("X-User-Id", "mallory")
                    .header("X-Forwarded-For", "198.51.100.20").exchange().expectStatus().isOk();
        }
        // From another address too: the user's own count is the user's wherever they are.
        fixture.client().get().uri("/api/products/p3").header("X-User-Id", "mallory")
                .header("X-Forwarded-For", "198.51.100.21").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectBody().jsonPath("$.error").isEqualTo("too_many_joins");
        assertThat(fixture.redis().commands().keys("qg:{p3}:*")).isEmpty();
    }

    @Test
    void manyUserIdsFromOneAddressAreCountedByTheAddress() {
        // 1,000 invented users from one client once made 1,000 places: the address counts them all.
        for (int i = 0; i < 5; i++) {
            fixture.client().get().uri("/api/products/42").header("X-User-Id", "bot-" + i)
                    .header("X-Forwarded-For", "192.0.2.50").exchange()
                    .expectStatus().value(status -> assertThat(status).isIn(200, 429));
        }
        fixture.client().get().uri("/api/products/42").header("X-User-Id", "bot-5")
                .header("X-Forwarded-For", "192.0.2.50").exchange()
                .expectBody().jsonPath("$.error").isEqualTo("too_many_joins");
        assertThat(Lines.of(fixture.redis().commands(), "42")).doesNotContain("bot-5");
    }

    @Test
    void anIpv6ClientCountsByItsSlash64WhateverItsLowBits() {
        for (int i = 0; i < 5; i++) {
            fixture.client().get().uri("/api/products/42").header("X-Forwarded-For", "2001:db8:7:7::" + (i + 1))
                    .exchange().expectStatus().value(status -> assertThat(status).isIn(200, 429));
        }
        fixture.client().get().uri("/api/products/42").header("X-Forwarded-For", "2001:db8:7:7:ffff::99").exchange()
                .expectBody().jsonPath("$.error").isEqualTo("too_many_joins");
        // Another /64 is another subscriber.
        fixture.client().get().uri("/api/products/42").header("X-Forwarded-For", "2001:db8:7:8::1").exchange()
                .expectBody().jsonPath("$.status").isEqualTo("WAITING");
    }

    @Test
    void queuesNobodyVisitsExpireOnTheirOwn() {
        fixture.client().get().uri("/api/products/42").header("X-User-Id", "alice")
                .header("X-Forwarded-For", "198.51.100.30").exchange().expectStatus().isOk();
        fixture.client().get().uri("/api/products/42").header("X-User-Id", "bob")
                .header("X-Forwarded-For", "198.51.100.30").exchange()
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
