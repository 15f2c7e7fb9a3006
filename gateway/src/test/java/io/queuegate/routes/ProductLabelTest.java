package io.queuegate.routes;

import java.net.URI;
import java.time.Instant;
import java.util.Map;

import io.queuegate.config.QueueSettings;

import org.junit.jupiter.api.Test;
import org.springframework.cloud.gateway.route.Route;

import static org.assertj.core.api.Assertions.assertThat;

/** What the console calls a product: the display-name its route or its override gives it. */
class ProductLabelTest {

    private static final QueueSettings WINTER = new QueueSettings(null, null, null, null, null, null, null,
            Instant.parse("2026-12-24T01:00:00Z"), null, null, null, null, " Winter jacket ", null, null, null, null, null, null, null, null, null, null);

    private final RouteQueuePolicies policies = new RouteQueuePolicies(Map.of("jacket", WINTER));

    @Test
    void aRoutesDisplayNameIsLearnedFromTheRequestsItServes() {
        Route route = Route.async().id("sneakers").uri(URI.create("http://shop.internal"))
                .predicate(exchange -> true)
                .metadata(Map.of("queue", Map.of("display-name", "Limited sneakers", "max-active", "5")))
                .build();
        assertThat(policies.label("42").displayName()).as("no request served yet").isNull();

        assertThat(policies.policy(route, "42").displayName()).isEqualTo("Limited sneakers");

        assertThat(policies.label("42").displayName()).isEqualTo("Limited sneakers");
        assertThat(policies.label("43").displayName()).isNull();
    }

    @Test
    void aProductsOverrideNamesItBeforeAnyRequest() {
        assertThat(policies.label("jacket").displayName()).isEqualTo("Winter jacket");
        assertThat(policies.label("jacket").opensAt()).isEqualTo(Instant.parse("2026-12-24T01:00:00Z"));
    }

    @Test
    void productsWithoutANameCostNoMemory() {
        Route plain = Route.async().id("plain").uri(URI.create("http://shop.internal")).predicate(exchange -> true)
                .metadata(Map.of("queue", Map.of("max-active", "5"))).build();
        for (int i = 0; i < 100; i++) {
            policies.policy(plain, "p" + i);
        }
        assertThat(policies.label("p1").displayName()).isNull();
    }
}
