package io.queuegate.ops;

import java.time.Duration;
import java.util.Map;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.HttpStatus;

import static org.assertj.core.api.Assertions.assertThat;

/** The audit log {@code io.queuegate.audit}, read from the gateway's console output. */
@ExtendWith(OutputCaptureExtension.class)
class AuditLogTest {

    private static RedisProcess redis;
    private static WireMockServer backend;
    private static GatewayInstance gateway;
    private static ShopClient shop;

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        backend = Backend.start();
        Map<String, Object> properties = GatewayInstance.defaults(redis, backend.baseUrl(), Map.of(
                "max-active", "1",
                "session-ttl", "1m",
                "promotion", "pubsub",
                "complete-on", "POST /api/products/{productId}/orders"));
        properties.put("logging.level.io.queuegate.audit", "INFO");
        properties.put("management.endpoints.web.exposure.include", "queues");
        gateway = GatewayInstance.start(properties);
        shop = new ShopClient(gateway);
    }

    @AfterAll
    static void stop() {
        gateway.close();
        backend.stop();
        redis.close();
    }

    @Test
    void logsJoinsAdmissionsCompletionsAndLeavesButNeverAToken(CapturedOutput output) {
        String alice = ShopClient.tokenOf(shop.get("42", "alice", null).expectStatus().isOk());
        String bob = ShopClient.tokenOf(shop.get("42", "bob", null).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS));
        String carol = ShopClient.tokenOf(shop.get("42", "carol", null));
        bob = ShopClient.tokenOf(shop.get("42", "bob", bob));
        shop.order("42", "alice", alice).expectStatus().isCreated();
        shop.get("42", "bob", bob).expectStatus().isOk();
        shop.leave("42", "carol", carol).expectStatus().isOk();

        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(output.getOut())
                .contains("io.queuegate.audit")
                .contains("join product=42 route=products user=alice rank=0")
                .contains("join product=42 route=products user=bob rank=1")
                .contains("promotion product=42 trigger=completion promoted=1")
                .contains("completion product=42 route=products user=alice")
                .containsPattern("admission product=42 route=products user=bob waitedSeconds=\\d+")
                .contains("leave product=42 user=carol"));
        assertThat(output.getAll()).doesNotContain("eyJ").doesNotContain(alice).doesNotContain(bob);
    }

    @Test
    void logsOperatorActions(CapturedOutput output) {
        shop.operate("7", "{\"action\":\"pause\"}").expectStatus().isOk();

        assertThat(output.getOut()).contains("operator_action product=7 action=pause value= promoted=0");
    }

    @Test
    void shortensAnonymousIds() {
        assertThat(AuditLog.user("anon-AbCdEfGhIjKlMnOpQrStUv")).isEqualTo("anon-AbCdEf...");
        assertThat(AuditLog.user("alice")).isEqualTo("alice");
    }
}
