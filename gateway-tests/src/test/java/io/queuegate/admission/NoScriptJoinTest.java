package io.queuegate.admission;

import java.time.Duration;
import java.util.Map;

import io.queuegate.support.GatewayFixture;
import io.queuegate.support.GatewayInstance;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.ResponseCookie;
import org.springframework.test.web.reactive.server.EntityExchangeResult;

import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A browser without JavaScript pays for a place with a wait the gateway signs, from an attacker's
 * side too, on two gateway instances sharing one Redis: the ticket joins once it is ready, never
 * before; asked again it is the same ticket; shown a second time, on any instance, it buys nothing
 * (409, and a new ticket that waits afresh); another network's ticket buys nothing; and the shop
 * sees neither the ticket nor an unpaid join.
 */
class NoScriptJoinTest {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "5", "session-ttl", "10m",
                    "join-challenge", "anonymous"))
            .with("queuegate.identity.source", "principal")
            .with("queuegate.challenge.no-script-wait", "1s")
            .instances(2);

    @Test
    void aReadyTicketJoinsOnceAndNeverBefore() {
        EntityExchangeResult<String> first = page(fixture.gateway(0), null, "203.0.113.1");
        assertThat(first.getStatus().value()).isEqualTo(428);
        String ticket = ticketOf(first);

        EntityExchangeResult<String> early = page(fixture.gateway(0), ticket, "203.0.113.1");
        assertThat(early.getStatus().value()).as("not ready yet").isEqualTo(428);
        assertThat(ticketOf(early)).as("asked again: the same ticket").isEqualTo(ticket);
        fixture.backend().verify(0, anyRequestedFor(anyUrl()));

        Awaitility.await().pollDelay(Duration.ofMillis(1_000)).atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> {
                    EntityExchangeResult<String> ready = page(fixture.gateway(0), ticket, "203.0.113.1");
                    assertThat(ready.getStatus().value()).as("%s %s", ready.getResponseHeaders(),
                            ready.getResponseBody()).isEqualTo(200);
                });
        EntityExchangeResult<String> replay = page(fixture.gateway(1), ticket, "203.0.113.1");
        assertThat(replay.getStatus().value()).as("the same ticket on the other instance").isEqualTo(409);
        String next = ticketOf(replay);
        assertThat(next).isNotEqualTo(ticket);
        assertThat(page(fixture.gateway(1), next, "203.0.113.1").getStatus().value()).as("a new wait").isEqualTo(428);
        assertThat(fixture.backend().findAll(anyRequestedFor(anyUrl())).get(0).getHeader("Cookie"))
                .as("the shop never sees the ticket").doesNotContain("queue_wait");
    }

    @Test
    void aTicketFromAnotherNetworkBuysNothing() {
        String ticket = ticketOf(page(fixture.gateway(0), null, "203.0.113.2"));
        Awaitility.await().pollDelay(Duration.ofMillis(1_100)).atMost(Duration.ofSeconds(5)).until(() -> true);
        EntityExchangeResult<String> moved = page(fixture.gateway(0), ticket, "198.51.100.2");
        assertThat(moved.getStatus().value()).isEqualTo(428);
        assertThat(ticketOf(moved)).isNotEqualTo(ticket);
    }

    private static EntityExchangeResult<String> page(GatewayInstance gateway, String ticket, String address) {
        return gateway.client().get().uri("/api/products/42").header("Accept", "text/html")
                .header("X-Forwarded-For", address)
                .cookies(cookies -> {
                    if (ticket != null) {
                        cookies.add("queue_wait", ticket);
                    }
                    cookies.add("shop_session", "abc");
                })
                .exchange().expectBody(String.class).returnResult();
    }

    private static String ticketOf(EntityExchangeResult<String> answer) {
        ResponseCookie cookie = answer.getResponseCookies().getFirst("queue_wait");
        assertThat(cookie).as("the answer's wait ticket").isNotNull();
        return cookie.getValue();
    }
}
