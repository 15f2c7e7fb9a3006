package io.queuegate.store;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis that may evict QueueGate's keys, on real servers with each kind of policy: reported at
 * startup with the fix and in the health details, also where {@code CONFIG} is refused (as managed
 * Redis services do), since {@code INFO memory} says it.
 */
@ExtendWith(OutputCaptureExtension.class)
class EvictionCheckTest {

    @Test
    void everyPolicyButNoevictionUnderAMemoryLimitMayEvictTheLine() {
        assertThat(verdict(List.of("maxmemory 100mb", "maxmemory-policy allkeys-lru")).safe()).isFalse();
        assertThat(verdict(List.of("maxmemory 100mb", "maxmemory-policy volatile-ttl")).safe())
                .as("every key of QueueGate has an expiry: volatile policies take them too").isFalse();
        EvictionCheck.Verdict noeviction = verdict(List.of("maxmemory 100mb", "maxmemory-policy noeviction"));
        assertThat(noeviction.safe()).isTrue();
        assertThat(noeviction.describe()).isEqualTo("noeviction (safe)");
        EvictionCheck.Verdict unlimited = verdict(List.of("maxmemory-policy allkeys-lru"));
        assertThat(unlimited.safe()).as("without a memory limit nothing is evicted").isTrue();
    }

    @Test
    void aManagedRedisThatRefusesConfigIsReadFromInfo() {
        EvictionCheck.Verdict verdict = verdict(List.of("maxmemory 100mb", "maxmemory-policy allkeys-lfu",
                "rename-command CONFIG \"\""));
        assertThat(verdict.policy()).isEqualTo("allkeys-lfu");
        assertThat(verdict.describe()).contains("may evict QueueGate's keys").contains("noeviction");
    }

    @Test
    void anUnsafePolicyIsWarnedOfAtStartupAndShownInHealth(CapturedOutput output) {
        try (RedisProcess redis = RedisProcess.start(List.of("maxmemory 100mb", "maxmemory-policy allkeys-lru"))) {
            WireMockServer backend = Backend.start();
            GatewayInstance gateway = GatewayInstance.start(GatewayInstance.defaults(redis, backend.baseUrl(),
                    Map.of("max-active", "1")));
            try {
                Awaitility.await().atMost(Duration.ofSeconds(10))
                        .until(() -> output.getOut().contains("Redis's maxmemory-policy is allkeys-lru"));
                assertThat(output.getOut()).contains(EvictionCheck.FIX);
                String health = gateway.client().get().uri("/actuator/health").exchange().expectBody(String.class)
                        .returnResult().getResponseBody();
                assertThat(health).contains("\"eviction\":\"allkeys-lru with maxmemory 104857600: Redis may evict");
            }
            finally {
                gateway.close();
                backend.stop();
            }
        }
    }

    private static EvictionCheck.Verdict verdict(List<String> settings) {
        try (RedisProcess redis = RedisProcess.start(settings)) {
            LettuceConnectionFactory connections = new LettuceConnectionFactory(
                    new RedisStandaloneConfiguration("127.0.0.1", redis.port()));
            connections.afterPropertiesSet();
            connections.start();
            try {
                return new EvictionCheck(new ReactiveStringRedisTemplate(connections)).check().block(Duration.ofSeconds(5));
            }
            finally {
                connections.destroy();
            }
        }
    }
}
