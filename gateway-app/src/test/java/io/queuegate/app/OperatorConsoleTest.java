package io.queuegate.app;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;


import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator console as the runnable gateway ships it: exposed on the management port behind the
 * operator's login, absent from the shopper port; an action through the queues endpoint is written
 * to the audit log with the operator who took it (the login's user name); and a change another
 * site's page makes an operator's browser send is refused, although the browser attaches the
 * operator's login to it and Spring Security checks no CSRF token (it would break the shop's own
 * forms and curl).
 */
@ExtendWith(OutputCaptureExtension.class)
class OperatorConsoleTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final String LOGIN = RawHttp.basic("ops-alice", "console-test-password");

    private static final ShopJwts jwts = new ShopJwts();

    @RegisterExtension
    static final RunnableGatewayFixture fixture = RunnableGatewayFixture.create()
            .with("spring.security.oauth2.resourceserver.jwt.public-key-location", jwts.publicKeyLocation())
            .with("spring.security.user.name", "ops-alice")
            .with("spring.security.user.password", "console-test-password")
            .with("logging.level.io.queuegate.audit", "INFO");

    @Test
    void servesTheConsoleOnTheManagementPortAndNeverOnTheShopperPort() {
        HttpResponse<String> console = send(fixture.gateway().managementPort(), "GET", "/actuator/queueconsole", null,
                "Accept", "text/html", "Authorization", LOGIN);
        assertThat(console.statusCode()).isEqualTo(200);
        assertThat(console.body()).contains("QueueGate console");
        assertThat(console.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(policy ->
                assertThat(policy).contains("frame-ancestors 'none'"));
        assertThat(send(fixture.gateway().managementPort(), "GET", "/actuator/queueconsole/products", null,
                "Authorization", LOGIN).statusCode()).isEqualTo(200);

        assertThat(send(fixture.gateway().port(), "GET", "/actuator/queueconsole", null, "Accept", "text/html").statusCode())
                .isEqualTo(404);
        assertThat(send(fixture.gateway().port(), "GET", "/actuator/queueconsole/products", null).statusCode()).isEqualTo(404);
    }

    @Test
    void theAuditLogNamesTheOperatorWhoActed(CapturedOutput output) {
        HttpResponse<String> paused = send(fixture.gateway().managementPort(), "POST", "/actuator/queues/42",
                "{\"action\":\"pause\"}", "Content-Type", "application/json", "Authorization", LOGIN);
        assertThat(paused.statusCode()).isEqualTo(200);

        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(output.getOut())
                .contains("operator_action product=42 action=pause value= promoted=0 by=ops-alice"));

        // Nobody acts anonymously any more: without the login nothing happens, so nothing is logged.
        HttpResponse<String> anonymous = send(fixture.gateway().managementPort(), "POST", "/actuator/queues/42",
                "{\"action\":\"resume\"}", "Content-Type", "application/json");
        assertThat(anonymous.statusCode()).isEqualTo(401);
        // Nor does a JWT of the shop's identity provider: it names a shopper, who is no operator.
        HttpResponse<String> shopper = send(fixture.gateway().managementPort(), "POST", "/actuator/queues/42",
                "{\"action\":\"resume\"}", "Content-Type", "application/json",
                "Authorization", "Bearer " + jwts.signed("ops-alice"));
        assertThat(shopper.statusCode()).isEqualTo(401);
        HttpResponse<String> resumed = send(fixture.gateway().managementPort(), "POST", "/actuator/queues/42",
                "{\"action\":\"resume\"}", "Content-Type", "application/json", "Authorization", LOGIN);
        assertThat(resumed.statusCode()).isEqualTo(200);
        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(output.getOut())
                .contains("operator_action product=42 action=resume value= promoted=0 by=ops-alice"));
        assertThat(output.getOut()).as("one resume was logged, the operator's")
                .containsOnlyOnce("operator_action product=42 action=resume");
    }

    @Test
    void refusesAChangeFromAnotherSiteThoughSpringSecurityChecksNoCsrfToken() {
        HttpResponse<String> forged = send(fixture.gateway().managementPort(), "POST", "/actuator/queues/42",
                "{\"action\":\"drain\"}", "Content-Type", "application/json", "Origin", "http://evil.example",
                "Authorization", LOGIN);
        assertThat(forged.statusCode()).isEqualTo(403);
        assertThat(forged.body()).contains("cross_site_request");
        assertThat(fixture.redis().commands().hget("qg:{42}:settings", "draining")).isNotEqualTo("1");
    }

    private static HttpResponse<String> send(int port, String method, String path, String body, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i + 1 < headers.length; i += 2) {
            request.setHeader(headers[i], headers[i + 1]);
        }
        try {
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }
        catch (Exception ex) {
            throw new IllegalStateException(method + " " + path + " on port " + port + " failed", ex);
        }
    }
}
