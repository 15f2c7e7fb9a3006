package io.queuegate.chart;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.queuegate.config.QueuePolicy;
import io.queuegate.config.RouteField;
import io.queuegate.config.RouteFields;

/**
 * The JSON schema of a queue block (a route's, or a product's override), made from the gateway's
 * {@link RouteFields}: what the chart's {@code definitions.queueSettings} must be. It takes every
 * form the gateway binds (a duration as {@code 10m}, {@code PT10M} or milliseconds; an instant as
 * text or epoch milliseconds) and refuses what the gateway would refuse at startup, where a schema
 * can tell.
 */
final class QueueSettingsSchema {

    /** Spring's duration: a number with an optional simple unit, or ISO-8601 in either case. */
    static final String DURATION = "^([0-9]+([nNuUmM][sS]|[sSmMhHdD])?|[pP]([0-9]+[dD])?([tT]([0-9]+[hH])?([0-9]+[mM])?"
            + "([0-9]+([.,][0-9]{0,9})?[sS])?)?)$";
    /** A language tag as display-names' keys take it: {@code ko}, {@code pt-BR}. */
    static final String LANGUAGE_TAG = "^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$";
    /** Not blank, no control character, at most MAX_DISPLAY_NAME characters once trimmed. */
    static final String DISPLAY_NAME = "^\\s*[^\\x00-\\x1f\\x7f-\\x9f\\s][^\\x00-\\x1f\\x7f-\\x9f]{0,"
            + (QueuePolicy.MAX_DISPLAY_NAME - 1) + "}\\s*$";
    /** "METHOD /path", or blank (none). */
    static final String REQUEST = "^\\s*([A-Za-z]+\\s+/\\S*)?\\s*$";

    private QueueSettingsSchema() {
    }

    static Map<String, Object> definition() {
        Map<String, Object> properties = new LinkedHashMap<>();
        RouteFields.ALL.forEach(field -> properties.put(field.name(), property(field)));
        Map<String, Object> definition = new LinkedHashMap<>();
        definition.put("type", "object");
        definition.put("description", "A route's queue block, or a per-product override of it: the fields of "
                + "docs/configuration.md, each optional.");
        definition.put("additionalProperties", false);
        definition.put("properties", properties);
        return definition;
    }

    static Map<String, Object> property(RouteField<?> field) {
        Map<String, Object> property = new LinkedHashMap<>();
        Class<?> type = field.type();
        if (type == Integer.class || type == Long.class) {
            property.put("type", "integer");
        }
        else if (type == Map.class) {
            property.put("type", "object");
        }
        else if (type == Duration.class || type == Instant.class) {
            property.put("type", List.of("string", "integer"));
        }
        else if (type.isEnum() && field.choices().contains("off")) {
            // YAML 1.1, which Helm reads values with, makes an unquoted off the boolean false, which
            // the gateway binds as off.
            property.put("type", List.of("string", "boolean"));
        }
        else {
            property.put("type", "string");
        }
        if (type.isEnum()) {
            List<Object> choices = new ArrayList<>(field.choices());
            if (choices.contains("off")) {
                choices.add(false);
            }
            property.put("enum", choices);
        }
        switch (field.format()) {
            case DURATION -> property.put("pattern", DURATION);
            case REQUEST -> property.put("pattern", REQUEST);
            case NOT_BLANK -> {
                property.put("minLength", 1);
                property.put("pattern", "\\S");
            }
            case DISPLAY_NAME -> property.put("pattern", DISPLAY_NAME);
            case DISPLAY_NAMES -> {
                property.put("propertyNames", Map.of("pattern", LANGUAGE_TAG));
                Map<String, Object> name = new LinkedHashMap<>();
                name.put("type", "string");
                name.put("pattern", DISPLAY_NAME);
                property.put("additionalProperties", name);
            }
            case ANY, INSTANT -> {
            }
        }
        if (field.minimum() != null) {
            property.put("minimum", field.minimum());
        }
        if (field.maximum() != null) {
            property.put("maximum", field.maximum());
        }
        property.put("description", field.description());
        return property;
    }
}
