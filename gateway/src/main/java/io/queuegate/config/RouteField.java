package io.queuegate.config;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * One field of a route's {@code queue} block and of a product's override: what it is called, what
 * kind of value it takes, its default, its bounds and its one-line description. {@link RouteFields}
 * lists every field; {@link QueuePolicy} takes its defaults and bounds from there, and tests hold
 * {@link QueueSettings}, the configuration reference's route table and the Helm chart's schema to
 * the same list.
 *
 * @param name the field as YAML spells it
 * @param type the Java type it binds to
 * @param format what the chart's schema checks of a text value beyond its type
 * @param defaultValue what a route that leaves it out gets, or {@code null} (none)
 * @param defaultText the default as the docs and the chart say it
 * @param minimum the smallest value (milliseconds for a duration), or {@code null}
 * @param maximum the largest value, or {@code null}
 * @param perProduct whether a product's override of it counts (a route-only field is read from the
 *                   route; an override of it is accepted and ignored)
 * @param appliedBy who obeys it: the gateway, per request, or the Redis scripts, which get it on the
 *                  wire by {@code name} and keep it in the product's settings hash
 * @param summary what it does, in a sentence or two, without the default
 * @param <T> the Java type
 */
public record RouteField<T>(String name, Class<T> type, Format format, T defaultValue, String defaultText,
        Long minimum, Long maximum, boolean perProduct, AppliedBy appliedBy, String summary) {

    /** Who obeys a field. */
    public enum AppliedBy {
        /** The gateway's Java code, reading it from the request's {@link QueuePolicy}; Redis never sees it. */
        GATEWAY,
        /**
         * The Redis scripts: every join and recovery sends it by its name ({@code ProductRules}' wire
         * list), the product's settings hash keeps it under that name, and the scripts without a
         * request (promotion, leave, expiry) obey it from there. Two routes that can serve one
         * product must agree on it.
         */
        SCRIPTS
    }

    /** What a text value must look like beyond being text. */
    public enum Format {
        /** Nothing more (or a type that says it all). */
        ANY,
        /** A Spring duration ({@code 30s}, {@code 10m}, {@code PT10M}; a plain number is milliseconds). */
        DURATION,
        /** An ISO-8601 instant. */
        INSTANT,
        /** {@code "METHOD /path/pattern"}, or blank. */
        REQUEST,
        /** Not blank. */
        NOT_BLANK,
        /** A display name: not blank, no control character, at most {@link QueuePolicy#MAX_DISPLAY_NAME}. */
        DISPLAY_NAME,
        /** Display names by language tag, each a {@link #DISPLAY_NAME}. */
        DISPLAY_NAMES
    }

    /** The value given, or the default when none is. */
    public T or(T value) {
        return value != null ? value : defaultValue;
    }

    /** How YAML spells each value of a field that takes one of a few ({@code pubsub}, {@code off}), else none. */
    public List<String> choices() {
        if (!type.isEnum()) {
            return List.of();
        }
        return Arrays.stream(type.getEnumConstants())
                .map(constant -> ((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'))
                .toList();
    }

    /** The summary, whether a product may override it, then the default: what the chart's schema says of the field. */
    public String description() {
        return summary + (perProduct ? "" : " Read from the route only: a product's override of it is accepted and "
                + "ignored.") + " Default " + defaultText + ".";
    }
}
