package io.queuegate.app;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.RedisProcess;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where the operator's login comes from when nobody configured one, as in Spring Boot: user
 * {@code user} and a password generated at startup and logged once, so an operator at the
 * console of a fresh install can act and nobody else can. A configured password is never logged.
 */
@ExtendWith(OutputCaptureExtension.class)
class OperatorPasswordTest {

    private static final Pattern GENERATED = Pattern.compile("Using generated security password: (\\S+)");

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
    void withoutAConfiguredPasswordOneIsGeneratedAndLoggedOnce(CapturedOutput output) {
        Map<String, Object> properties = RunnableGateway.properties(redis, shop.baseUrl());
        properties.remove("spring.security.user.name");
        properties.remove("spring.security.user.password");
        try (RunnableGateway gateway = RunnableGateway.start(properties)) {
            Matcher generated = GENERATED.matcher(output.getOut());
            assertThat(generated.find()).as("the generated password is logged: %s", output.getOut()).isTrue();
            String password = generated.group(1);
            assertThat(generated.find()).as("logged once").isFalse();

            String pause = "{\"action\":\"pause\"}";
            assertThat(RawHttp.send(gateway.managementPort(), "POST", "/actuator/queues/42", pause,
                    "Content-Type", "application/json").status()).isEqualTo(401);
            RawHttp.Answer acted = RawHttp.send(gateway.managementPort(), "POST", "/actuator/queues/42", pause,
                    "Content-Type", "application/json", "Authorization", RawHttp.basic("user", password));
            assertThat(acted.status()).as(acted.toString()).isEqualTo(200);
            assertThat(acted.body()).contains("\"paused\":true");
        }
    }

    @Test
    void aConfiguredPasswordIsNeverLogged(CapturedOutput output) {
        Map<String, Object> properties = RunnableGateway.properties(redis, shop.baseUrl());
        properties.remove("spring.security.user.name");
        properties.put("spring.security.user.password", "configured-operator-password");
        try (RunnableGateway gateway = RunnableGateway.start(properties)) {
            assertThat(RawHttp.send(gateway.managementPort(), "POST", "/actuator/queues/42", "{\"action\":\"resume\"}",
                    "Content-Type", "application/json",
                    "Authorization", RawHttp.basic("user", "configured-operator-password")).status()).isEqualTo(200);
            assertThat(output.getOut()).doesNotContain("generated security password")
                    .doesNotContain("configured-operator-password");
        }
    }
}
