package io.queuegate.app;

import java.net.http.HttpResponse;

import io.queuegate.server.KeepAliveWorkaround;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runnable gateway's own defaults keep the operations surface away from shoppers: the
 * actuator lives on the management port, the gateway endpoint there is read-only, and a
 * configuration that would put the operator's levers on the shopper port does not start.
 * Before, {@code POST /actuator/gateway/routes/{id}} plus a refresh on the shopper port added a
 * route without a queue, and every shopper walked past the waiting room. What refuses to start is
 * in {@link UnsafeStartupTest}.
 */
class RunnableDefaultsTest {

    @RegisterExtension
    static final RunnableGatewayFixture fixture = RunnableGatewayFixture.create();

    @ParameterizedTest
    @ValueSource(strings = { "/actuator", "/actuator/health", "/actuator/health/readiness", "/actuator/gateway/routes",
            "/actuator/queues", "/actuator/queueconsole", "/actuator/prometheus", "/actuator/env" })
    void theShopperPortServesNoActuator(String path) {
        assertThat(fixture.gateway().shopper("GET", path).statusCode()).as(path).isEqualTo(404);
    }

    @Test
    void routesCannotBeWrittenOnEitherPort() {
        assertThat(fixture.gateway().shopper("POST", "/actuator/gateway/routes/injected").statusCode()).isEqualTo(404);
        assertThat(fixture.gateway().shopper("POST", "/actuator/gateway/refresh").statusCode()).isEqualTo(404);
        // Not even the operator's login writes routes: there is no such operation.
        HttpResponse<String> write = fixture.gateway().operator("POST", "/actuator/gateway/routes/injected");
        assertThat(write.statusCode()).as(write.body()).isIn(404, 405);
        assertThat(fixture.gateway().operator("DELETE", "/actuator/gateway/routes/products").statusCode()).isIn(404, 405);
        assertThat(fixture.gateway().operator("POST", "/actuator/gateway/refresh").statusCode()).isIn(404, 405);

        HttpResponse<String> routes = fixture.gateway().management("GET", "/actuator/gateway/routes");
        assertThat(routes.statusCode()).isEqualTo(200);
        assertThat(routes.body()).contains("\"products\"").doesNotContain("injected");
        // The product route still queues: the first shopper passes, the second waits (each
        // anonymous, so each pays the proof of work the runnable gateway asks of them).
        assertThat(fixture.gateway().anonymousJoin("/api/products/42").statusCode()).isEqualTo(200);
        assertThat(fixture.gateway().anonymousJoin("/api/products/42").statusCode()).isEqualTo(429);
    }

    /** Reactor Netty 1.3.6 parks a kept-alive connection without it (KeepAliveConnectionTest). */
    @Test
    void withoutAJwtToValidateShoppersPassNoSpringSecurityWhileOperatorsStillLogIn() {
        assertThat(fixture.gateway().anonymousJoin("/api/products/7").statusCode()).isEqualTo(200);
        assertThat(fixture.gateway().bean(ShopperPathSecurity.Filter.class).shoppersSkip()).isTrue();
        assertThat(fixture.gateway().management("POST", "/actuator/queues/7").statusCode()).isEqualTo(401);
    }

    @Test
    void theRunnableGatewayTurnsTheKeepAliveWorkaroundOn() {
        assertThat(fixture.gateway().bean(KeepAliveWorkaround.class)).isNotNull();
    }

    @Test
    void theManagementPortServesHealthMetricsAndTheQueues() {
        HttpResponse<String> health = fixture.gateway().management("GET", "/actuator/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"queuegate\"");
        assertThat(fixture.gateway().management("GET", "/actuator/health/readiness").statusCode()).isEqualTo(200);
        assertThat(fixture.gateway().management("GET", "/actuator/health/liveness").statusCode()).isEqualTo(200);
        assertThat(fixture.gateway().management("GET", "/actuator/prometheus", "Accept", "text/plain").statusCode()).isEqualTo(200);
        assertThat(fixture.gateway().management("GET", "/actuator/queues").statusCode()).isEqualTo(200);
    }

    @Test
    void healthSaysNothingAboutADiscoveryClientTheGatewayDoesNotUse() {
        HttpResponse<String> health = fixture.gateway().management("GET", "/actuator/health");
        assertThat(health.body()).as(health.body()).doesNotContain("discoveryComposite")
                .doesNotContain("Discovery Client not initialized")
                .contains("\"queuegate\"").contains("\"redis\"").contains("\"status\":\"UP\"");
    }
}
