package io.queuegate.config;

import java.util.HashMap;
import java.util.Map;

import io.queuegate.support.GatewayInstance;
import io.queuegate.support.RedisProcess;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A bad route queue block stops the gateway at startup, naming the route and the field. */
class RouteValidationTest {

    private static RedisProcess redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisProcess.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    private static String messagesOf(Throwable error) {
        StringBuilder messages = new StringBuilder();
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            messages.append(cause.getMessage()).append('\n');
        }
        return messages.toString();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "promotion | carrier-pigeon | route 'products' has an invalid queue block",
            "max-active | 0           | max-active must be at least 1",
            "session-ttl | 0s         | session-ttl must be at least 1s",
            "complete-on | /orders    | complete-on must look like",
    })
    void refusesToStart(String field, String value, String message) {
        Map<String, Object> properties = new HashMap<>(
                GatewayInstance.defaults(redis, "http://localhost:1", Map.of(field, value)));
        assertThatThrownBy(() -> GatewayInstance.start(properties).close())
                .satisfies(error -> assertThat(messagesOf(error)).contains(message));
    }
}
