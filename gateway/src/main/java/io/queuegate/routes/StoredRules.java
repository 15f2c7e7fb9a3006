package io.queuegate.routes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

import io.queuegate.config.QueuePolicy;
import io.queuegate.config.QueueSettings;
import io.queuegate.config.RouteField;
import io.queuegate.config.RouteFields;

/**
 * What one protected route would make of a product's line in Redis: the rules the scripts store
 * once per product ({@link QueuePolicy#rules()}), field by field, and the route's
 * {@code product-id-pattern}, which says which products it can serve. Two routes that can serve
 * one product must have equal rules, or the line would follow whichever of them joined last.
 *
 * @param routeId the route
 * @param productIdPattern its product-id-pattern, or {@code null} (any id)
 * @param values each stored field's value by the field's name, in {@link #FIELDS}' order
 */
record StoredRules(String routeId, String productIdPattern, Map<String, Object> values) {

    /**
     * The fields the scripts keep per product ({@link RouteFields#SCRIPTS}), each read from the
     * rules the policy sends them ({@link QueuePolicy#scriptRules()}, by the field's name). Any other field
     * is read from the route of each request (its completion rule, its proof of work, its path
     * variable) and may differ between routes; {@code StoredRulesTest} holds this list to
     * {@link QueuePolicy#rules()}.
     */
    static final List<Stored> FIELDS = RouteFields.SCRIPTS.stream()
            .map(field -> new Stored(field, policy -> policy.scriptRules().get(field.name())))
            .toList();

    /**
     * The stored rules of a route's own settings (the route defaults under its block); a product's
     * override is left out, since it applies to every route that serves the product alike.
     *
     * @throws IllegalArgumentException when the settings are not valid
     */
    static StoredRules of(String routeId, QueueSettings routeSettings) {
        Map<String, Object> rules = QueuePolicy.from(routeSettings).scriptRules();
        Map<String, Object> values = new LinkedHashMap<>();
        for (Stored field : FIELDS) {
            values.put(field.field().name(), rules.get(field.field().name()));
        }
        return new StoredRules(routeId, routeSettings.productIdPattern(), values);
    }

    /** Whether this route and {@code other} could be asked for the same product id. */
    boolean mayShareProductsWith(StoredRules other) {
        return ProductIdPatterns.mayOverlap(productIdPattern, other.productIdPattern);
    }

    /** The fields whose values differ, each as {@code "max-active (10 on 'a', 5 on 'b')"}; empty when they agree. */
    List<String> differencesFrom(StoredRules other) {
        List<String> differences = new ArrayList<>();
        values.forEach((name, value) -> {
            Object theirs = other.values.get(name);
            if (!Objects.equals(value, theirs)) {
                differences.add(name + " (" + spelled(value) + " on '" + routeId + "', " + spelled(theirs) + " on '"
                        + other.routeId + "')");
            }
        });
        return differences;
    }

    /** Whether the route would make the same of every product as {@code other} (another version of it). */
    boolean sameAs(StoredRules other) {
        return other != null && values.equals(other.values) && Objects.equals(productIdPattern, other.productIdPattern);
    }

    private static String spelled(Object value) {
        if (value == null) {
            return "none";
        }
        if (value instanceof Duration duration) {
            return spelled(duration);
        }
        return value instanceof Enum<?> constant ? constant.name().toLowerCase(Locale.ROOT).replace('_', '-')
                : value.toString();
    }

    /** As a route would write it: {@code 10m}, {@code 90s}, {@code 1500ms}. */
    private static String spelled(Duration duration) {
        long millis = duration.toMillis();
        for (Map.Entry<String, Long> unit : List.of(Map.entry("h", 3_600_000L), Map.entry("m", 60_000L),
                Map.entry("s", 1_000L))) {
            if (millis != 0 && millis % unit.getValue() == 0) {
                return millis / unit.getValue() + unit.getKey();
            }
        }
        return millis + "ms";
    }

    /** A stored field, and where the policy holds its value. */
    record Stored(RouteField<?> field, Function<QueuePolicy, Object> value) {
    }
}
