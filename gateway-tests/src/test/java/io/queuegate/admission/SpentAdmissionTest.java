package io.queuegate.admission;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;
import io.queuegate.support.TestGateway;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.test.web.reactive.server.EntityExchangeResult;

import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A spent admission stays spent after a single loss: a shopper buys through one instance; another
 * instance starts (a rolling deploy, an autoscaled pod); the instance that heard the purchase goes;
 * then Redis restarts empty. Neither the shopper's admitted token nor the wait token from before
 * the admission buys again through the instance that never heard the purchase.
 */
class SpentAdmissionTest {

    private static final String ORDERS = "/api/products/42/orders";

    private RedisProcess redis;
    private WireMockServer shop;
    private final List<GatewayInstance> gateways = new ArrayList<>();

    @BeforeEach
    void startRedisAndShop() {
        redis = RedisProcess.start();
        shop = Backend.start();
    }

    @AfterEach
    void stopAll() {
        GatewayInstance.closeAll(gateways);
        shop.stop();
        redis.close();
    }

    @Test
    void neitherTheAdmittedNorTheWaitTokenBuysAgainAfterTheInstanceThatHeardThePurchaseIsGoneAndRedisForgets() {
        GatewayInstance heard = gateway();
        String zed = get(heard, "zed", null).getResponseHeaders().getFirst("Queue-Token");
        EntityExchangeResult<String> waiting = get(heard, "alice", null);
        assertThat(waiting.getStatus().value()).isEqualTo(429);
        String waitToken = waiting.getResponseHeaders().getFirst("Queue-Token");
        assertThat(order(heard, "zed", zed)).isEqualTo(201);
        Awaitility.await().atMost(Duration.ofSeconds(5))
                .until(() -> get(heard, "alice", waitToken).getStatus().value() == 200);
        String admittedToken = get(heard, "alice", waitToken).getResponseHeaders().getFirst("Queue-Token");
        assertThat(order(heard, "alice", admittedToken)).isEqualTo(201);
        assertThat(order(heard, "alice", admittedToken)).as("one admission, one purchase").isEqualTo(409);
        // The product is among the recently active ones a starting instance reads.
        Awaitility.await().atMost(Duration.ofSeconds(5))
                .until(() -> redis.commands().zscore("qg:activity", "42") != null);

        GatewayInstance newcomer = gateway();
        heard.close();
        gateways.remove(heard);
        redis.kill();
        redis.restartEmpty();
        Awaitility.await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100))
                .until(() -> newcomer.client().get().uri("/actuator/health/readiness").exchange()
                        .returnResult(String.class).getStatus().value() == 200);

        assertThat(order(newcomer, "alice", admittedToken)).as("the admitted token after the loss").isEqualTo(409);
        assertThat(order(newcomer, "alice", waitToken)).as("the wait token from before the admission").isEqualTo(409);
        shop.verify(2, postRequestedFor(urlPathEqualTo(ORDERS)));
    }

    private GatewayInstance gateway() {
        Map<String, Object> properties = GatewayInstance.defaults(redis, shop.baseUrl(), Map.of(
                "max-active", "1", "session-ttl", "10m", "promotion", "pubsub",
                "complete-on", "POST /api/products/{productId}/orders"));
        // One instance stops while the other serves on: each needs event loops of its own.
        properties.put(TestGateway.OWN_NETTY_RESOURCES, "true");
        GatewayInstance gateway = GatewayInstance.start(properties);
        gateways.add(gateway);
        return gateway;
    }

    private static EntityExchangeResult<String> get(GatewayInstance gateway, String user, String token) {
        var request = gateway.client().get().uri("/api/products/42").header("X-User-Id", user);
        if (token != null) {
            request = request.header("Queue-Token", token);
        }
        return request.exchange().expectBody(String.class).returnResult();
    }

    private static int order(GatewayInstance gateway, String user, String token) {
        return gateway.client().post().uri(ORDERS).header("X-User-Id", user).header("Queue-Token", token)
                .bodyValue("{\"quantity\":1}").exchange().returnResult(String.class).getStatus().value();
    }
}
