package io.queuegate.routes;

import java.net.URI;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import io.queuegate.config.QueuePolicy;
import io.queuegate.config.QueueSettings;
import io.queuegate.config.RouteField;
import io.queuegate.config.RouteFields;

import org.junit.jupiter.api.Test;
import org.springframework.cloud.gateway.route.Route;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules two routes of one product must agree on are exactly those the scripts store for the
 * product: every route field whose value changes {@link QueuePolicy#rules()}, and no other.
 */
class StoredRulesTest {

    /**
     * A value other than the default for every route field. A new field needs one here: say whether
     * the scripts store it (then {@link StoredRules#FIELDS} holds it) by what it does to the rules.
     */
    private static final Map<String, Object> OTHER_VALUES = Map.ofEntries(
            Map.entry("max-active", "3"),
            Map.entry("session-ttl", "5m"),
            Map.entry("promotion", "keyspace"),
            Map.entry("complete-on", "POST /shop/{productId}/orders"),
            Map.entry("on-redis-failure", "open"),
            Map.entry("product-id-variable", "sku"),
            Map.entry("product-id-pattern", "[0-9]+"),
            Map.entry("opens-at", "2030-01-01T10:00:00Z"),
            Map.entry("closes-at", "2030-01-01T12:00:00Z"),
            Map.entry("max-admit-per-minute", "60"),
            Map.entry("abandon-after", "30s"),
            Map.entry("arrival-ttl", "30s"),
            Map.entry("display-name", "Limited sneakers"),
            Map.entry("invites", "priority"),
            Map.entry("join-challenge", "pow"),
            Map.entry("pow-difficulty", "1000"),
            Map.entry("bind-token", "network"),
            Map.entry("stock", "5"),
            Map.entry("units-per-shopper", "2"),
            Map.entry("product-id-case", "keep"),
            Map.entry("complete-on-redirect", "sale"),
            Map.entry("websocket", "allow"),
            Map.entry("display-names", Map.of("ko", "겨울 드롭")));

    @Test
    void theComparedFieldsAreExactlyThoseThatChangeTheStoredRules() {
        assertThat(OTHER_VALUES.keySet()).as("a value for every route field")
                .containsAll(RouteFields.ALL.stream().map(RouteField::name).toList());
        QueuePolicy defaults = QueuePolicy.from(QueueSettings.EMPTY);
        Set<String> compared = StoredRules.FIELDS.stream().map(stored -> stored.field().name()).collect(Collectors.toSet());
        for (RouteField<?> field : RouteFields.ALL) {
            QueueSettings settings = settings(Map.of(field.name(), OTHER_VALUES.get(field.name())));
            boolean changesRules = !QueuePolicy.from(settings).rules().equals(defaults.rules());
            assertThat(compared.contains(field.name())).as("%s is compared between routes", field.name())
                    .isEqualTo(changesRules);
            if (changesRules) {
                assertThat(StoredRules.of("a", settings).differencesFrom(StoredRules.of("b", QueueSettings.EMPTY)))
                        .as(field.name()).singleElement().asString().startsWith(field.name() + " (");
            }
        }
    }

    @Test
    void aDifferenceNamesTheFieldAndBothRoutesValues() {
        StoredRules fast = StoredRules.of("fast", settings(Map.of("max-active", "50", "promotion", "keyspace")));
        StoredRules slow = StoredRules.of("slow", settings(Map.of("max-active", "5", "complete-on", "POST /x/{productId}")));

        assertThat(fast.differencesFrom(slow)).containsExactly("max-active (50 on 'fast', 5 on 'slow')",
                "promotion (keyspace on 'fast', pubsub on 'slow')");
    }

    @Test
    void valuesAreComparedAsThePolicyHasThem() {
        // 10 is the default, 600000 ms is 10m, and an arrival-ttl beyond the session is the session.
        StoredRules spelledOut = StoredRules.of("a", settings(Map.of("max-active", "10", "session-ttl", "600000",
                "arrival-ttl", "2m")));
        StoredRules implied = StoredRules.of("b", settings(Map.of("session-ttl", "10m", "arrival-ttl", "2m")));
        StoredRules shortSession = StoredRules.of("c", settings(Map.of("session-ttl", "1m", "arrival-ttl", "5m")));
        StoredRules shortArrival = StoredRules.of("d", settings(Map.of("session-ttl", "1m", "arrival-ttl", "1m")));

        assertThat(spelledOut.differencesFrom(implied)).isEmpty();
        assertThat(shortSession.differencesFrom(shortArrival)).isEmpty();
    }

    private static QueueSettings settings(Map<String, Object> queue) {
        return RouteQueuePolicies.bind(Route.async().id("r").uri(URI.create("http://shop.internal"))
                .predicate(exchange -> true).metadata(Map.of("queue", queue)).build());
    }

    static StoredRules rules(String routeId, Map<String, Object> queue) {
        return StoredRules.of(routeId, settings(queue));
    }
}
