package io.queuegate.admission;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.queuegate.support.GatewayFixture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.test.web.reactive.server.WebTestClient;

import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A kept-alive connection keeps answering when an answer from Redis is followed by one given
 * without Redis. Reactor Netty 1.3.6 stopped reading such a connection about once in thirty
 * (reactor/reactor-netty#4361); {@code queuegate.server.keep-alive-workaround} sets the server
 * flag that avoids it, and this test fails without that flag. Reactor Netty reads the flag once
 * per JVM, so every test gateway sets it ({@code GatewayInstance}): to see this test fail, run it
 * alone without the setting.
 */
class KeepAliveConnectionTest {

    private static final int PAIRS = 300;

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withQueue(Map.of("max-active", "1", "session-ttl", "10m"))
            .with("queuegate.joins.max-per-address", "3")
            .with("queuegate.joins.window", "1h")
            .with("queuegate.server.keep-alive-workaround", "true");

    @Test
    void aConnectionKeepsAnsweringWhenAnAnswerWithoutRedisFollowsOneFromRedis() {
        // One pooled connection, so every request goes out on it as soon as the last answer is in.
        ConnectionProvider connection = ConnectionProvider.create("one-connection", 1);
        WebTestClient client = client(connection);
        // Three anonymous places use up the address's joins: a fourth anonymous caller is refused at once.
        for (int i = 0; i < 3; i++) {
            client.get().uri("/api/products/42").exchange().expectBody().returnResult();
        }
        List<String> stalls = new ArrayList<>();
        for (int i = 0; i < PAIRS; i++) {
            try {
                // answered once Redis replies, from a Lettuce thread (the script says whether a place
                // would be made, so a signed-in shopper's join limit is checked there)
                client.get().uri("/api/products/42").header("X-User-Id", "user-" + i).exchange()
                        .expectBody().returnResult();
                // answered at once on the event loop: an anonymous caller with no token, over the limit
                client.get().uri("/api/products/42").exchange()
                        .expectStatus().isEqualTo(429).expectBody().returnResult();
            }
            catch (AssertionError | IllegalStateException stall) {
                stalls.add("pair " + i + ": " + stall.getMessage());
                connection.dispose();
                connection = ConnectionProvider.create("one-connection", 1);
                client = client(connection);
            }
        }
        connection.dispose();
        assertThat(stalls).isEmpty();
    }

    private static WebTestClient client(ConnectionProvider connection) {
        return WebTestClient.bindToServer(new ReactorClientHttpConnector(HttpClient.create(connection)))
                .baseUrl(fixture.gateway().baseUrl()).responseTimeout(Duration.ofSeconds(2)).build();
    }
}
