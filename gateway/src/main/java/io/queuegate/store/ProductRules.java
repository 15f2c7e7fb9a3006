package io.queuegate.store;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A product's rules as the scripts keep them with the queue, so promotions without a request
 * (scheduler, listeners, operators) follow them too: one component for each route field the
 * scripts obey ({@code RouteFields.SCRIPTS}, which {@code RouteFieldWireTest} holds to these
 * components), named as the field is ({@code maxActive} is {@code max-active}). {@link #wire()} is
 * the one way they reach Redis, for a join and a recovery alike.
 *
 * @param promotion the promotion strategy's id
 * @param opensAt {@code null} for a queue that is always open
 * @param closesAt {@code null} for never
 * @param maxAdmitPerMinute 0 for no limit
 * @param abandonAfter {@link Duration#ZERO} for never
 * @param arrivalTtl how long an admitted user has to arrive; zero (or less) is the whole session
 * @param unitsPerShopper how many units one admission may buy (at least 1)
 * @param stock the product's stock setting (units), applied when it first comes or changes;
 *              {@code null} for none
 */
public record ProductRules(int maxActive, Duration sessionTtl, String promotion, Instant opensAt, Instant closesAt,
        int maxAdmitPerMinute, Duration abandonAfter, Duration arrivalTtl, int unitsPerShopper, Long stock) {

    /** Where this record holds each rule, by the rule's route field name, in the components' order. */
    private static final Map<String, Method> COMPONENTS = components();

    public ProductRules {
        // What the scripts would make of these anyway, said once here so the wire carries the value
        // that is obeyed: no arrival-ttl is the whole session, and one admission buys at least a unit.
        if (arrivalTtl == null || arrivalTtl.isZero() || arrivalTtl.isNegative()) {
            arrivalTtl = sessionTtl;
        }
        unitsPerShopper = Math.max(1, unitsPerShopper);
    }

    /** Rules without a stock setting, one unit a shopper. */
    public ProductRules(int maxActive, Duration sessionTtl, String promotion, Instant opensAt, Instant closesAt,
            int maxAdmitPerMinute, Duration abandonAfter, Duration arrivalTtl) {
        this(maxActive, sessionTtl, promotion, opensAt, closesAt, maxAdmitPerMinute, abandonAfter, arrivalTtl, 1,
                null);
    }

    /** Plain queue rules: always open, unpaced, no one abandoned, the whole session to arrive. */
    public static ProductRules plain(int maxActive, Duration sessionTtl, String promotion) {
        return new ProductRules(maxActive, sessionTtl, promotion, null, null, 0, Duration.ZERO, sessionTtl);
    }

    /** Whether promotion runs on a clock of its own: a sale to open, or a pace to keep. */
    public boolean isTimed() {
        return opensAt != null || maxAdmitPerMinute > 0;
    }

    /** Each rule's value by its route field's name, in the components' order; {@code null} for none. */
    public Map<String, Object> byName() {
        Map<String, Object> values = new LinkedHashMap<>();
        COMPONENTS.forEach((name, accessor) -> values.put(name, read(accessor)));
        return Collections.unmodifiableMap(values);
    }

    /**
     * The rules as they travel to Redis: each field's name, then its value as the scripts read it
     * (a duration or an instant in milliseconds, {@code ""} for none). {@code rules.lua} reads the
     * list and the settings hash keeps each value under the field's name, whatever the field.
     */
    public List<String> wire() {
        List<String> words = new ArrayList<>(COMPONENTS.size() * 2);
        COMPONENTS.forEach((name, accessor) -> {
            words.add(name);
            words.add(spelled(read(accessor)));
        });
        return words;
    }

    private static String spelled(Object value) {
        if (value == null) {
            return "";
        }
        if (value instanceof Duration duration) {
            return Long.toString(duration.toMillis());
        }
        if (value instanceof Instant instant) {
            return Long.toString(instant.toEpochMilli());
        }
        return value.toString();
    }

    private Object read(Method accessor) {
        try {
            return accessor.invoke(this);
        }
        catch (IllegalAccessException | InvocationTargetException ex) {
            throw new IllegalStateException("cannot read " + accessor.getName() + " of " + this, ex);
        }
    }

    /** Each component's accessor by its name as a route field: {@code maxActive} is {@code max-active}. */
    private static Map<String, Method> components() {
        Map<String, Method> components = new LinkedHashMap<>();
        for (RecordComponent component : ProductRules.class.getRecordComponents()) {
            components.put(kebab(component.getName()), component.getAccessor());
        }
        return Collections.unmodifiableMap(components);
    }

    /** {@code maxActive} as YAML spells it: {@code max-active}. */
    private static String kebab(String camel) {
        StringBuilder name = new StringBuilder();
        for (char c : camel.toCharArray()) {
            if (Character.isUpperCase(c)) {
                name.append('-').append(Character.toLowerCase(c));
            }
            else {
                name.append(c);
            }
        }
        return name.toString();
    }

    /** The names on the wire, in their order: for the tests and the scripts' contract. */
    public static List<String> names() {
        return List.copyOf(COMPONENTS.keySet());
    }
}
