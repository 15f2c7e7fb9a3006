package io.queuegate.app;

import java.util.LinkedHashMap;
import java.util.Map;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.RedisProcess;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The demo profile deployed by mistake: its token secret and operator login are public and it
 * believes {@code X-User-Id} from loopback, so it refuses to start against a real Redis or with
 * either port reachable from beyond the machine, naming the property that would have allowed it.
 * That the demo as shipped starts, on loopback alone, is {@link DemoLoginTest}'s.
 */
class DemoProfileGuardTest {

    private static final String WHY = "The demo profile runs only on its embedded Redis and on loopback";

    private static RedisProcess redis;
    private static WireMockServer shop;

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        shop = Backend.start();
    }

    @AfterAll
    static void stop() {
        shop.stop();
        redis.close();
    }

    @Test
    void theDemoProfileRefusesARealRedis() {
        Map<String, Object> realRedis = demo();
        realRedis.put("queuegate.redis.embedded", "false");
        realRedis.put("spring.data.redis.host", "127.0.0.1");
        realRedis.put("spring.data.redis.port", Integer.toString(redis.port()));
        assertThatThrownBy(() -> RunnableGateway.start(realRedis).close())
                .hasStackTraceContaining(WHY)
                .hasStackTraceContaining("queuegate.redis.embedded is false");
    }

    @Test
    void theDemoProfileRefusesAShopperPortOnEveryInterface() {
        Map<String, Object> everywhere = demo();
        everywhere.put("server.address", "0.0.0.0");
        assertThatThrownBy(() -> RunnableGateway.start(everywhere).close())
                .hasStackTraceContaining(WHY)
                .hasStackTraceContaining("server.address is 0.0.0.0");
    }

    @Test
    void theDemoProfileRefusesAManagementPortOnEveryInterface() {
        Map<String, Object> everywhere = demo();
        everywhere.put("management.server.address", "0.0.0.0");
        assertThatThrownBy(() -> RunnableGateway.start(everywhere).close())
                .hasStackTraceContaining(WHY)
                .hasStackTraceContaining("management.server.address is 0.0.0.0");
    }

    @Test
    void aShopperPortLeftToEveryInterfaceIsRefusedToo() {
        Map<String, Object> unset = demo();
        unset.put("server.address", "");
        assertThatThrownBy(() -> RunnableGateway.start(unset).close())
                .hasStackTraceContaining(WHY)
                .hasStackTraceContaining("server.address is not set");
    }

    /** The demo profile as {@code demo.sh} starts it, on test ports, in front of the test's shop. */
    private static Map<String, Object> demo() {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("spring.profiles.active", "demo");
        properties.put("DEMO_BACKEND_URI", shop.baseUrl());
        RunnableGateway.onTestPorts(properties);
        properties.put("spring.main.banner-mode", "off");
        properties.put("logging.level.root", "WARN");
        return properties;
    }
}
