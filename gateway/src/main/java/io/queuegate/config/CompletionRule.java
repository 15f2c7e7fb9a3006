package io.queuegate.config;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

import org.springframework.http.HttpMethod;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * A route's {@code complete-on} rule, such as {@code "POST /api/products/{productId}/orders"}:
 * the request whose 2xx answer is a sale that ends the caller's session, so the backend needs no change.
 *
 * <p>The path is read as loosely as a shop could read it ({@link LooseReading}): in any letter
 * case and without a format, whatever follows the last segment's first dot, so
 * {@code POST .../ORDERS}, {@code POST .../orders.json} and {@code POST .../orders.1} complete the
 * session a shop that routes them to its order action sells in. The method is
 * compared in any letter case too, and it is the one the gateway sees, so a shop must act on that
 * one: on protected routes the {@link #METHOD_OVERRIDE_HEADERS} never reach it (a shop honouring
 * {@code X-HTTP-Method-Override: POST} on a {@code GET} would otherwise buy without completing).
 * A {@code HEAD} request matches a {@code GET} rule: Spring MVC, like most frameworks, serves
 * {@code HEAD} with the {@code GET} handler, so it is the same purchase with the body left off.
 */
public final class CompletionRule {

    /** Request headers with which a client asks a backend to act on another method than the request's. */
    public static final List<String> METHOD_OVERRIDE_HEADERS = List.of("X-HTTP-Method-Override", "X-HTTP-Method",
            "X-Method-Override");

    /** The rule of a route without {@code complete-on}: sessions end by leave or expiry. */
    public static final CompletionRule NONE = new CompletionRule(null, null, "");

    private static final PathPatternParser ANY_CASE = anyCase();

    private final HttpMethod method;
    private final PathPattern pattern;
    private final String text;

    private CompletionRule(HttpMethod method, PathPattern pattern, String text) {
        this.method = method;
        this.pattern = pattern;
        this.text = text;
    }

    /** Parses {@code "METHOD /path"}; fails with a message naming the bad part. */
    public static CompletionRule parse(String rule) {
        String[] parts = rule.trim().split("\\s+");
        if (parts.length != 2 || !parts[1].startsWith("/")) {
            throw new IllegalArgumentException(
                    "complete-on must look like \"POST /api/products/{productId}/orders\", was \"" + rule + "\"");
        }
        HttpMethod method = HttpMethod.valueOf(parts[0].toUpperCase(Locale.ROOT));
        PathPattern pattern = ANY_CASE.parse(parts[1]);
        return new CompletionRule(method, pattern, method.name() + " " + parts[1]);
    }

    /** Whether {@code request} is the completing request, read loosely. */
    public boolean matches(ServerHttpRequest request) {
        if (pattern == null) {
            return false;
        }
        String requested = request.getMethod().name();
        if (!requested.equalsIgnoreCase(method.name())
                && !(HttpMethod.GET.equals(method) && requested.equalsIgnoreCase(HttpMethod.HEAD.name()))) {
            return false;
        }
        String path = request.getPath().pathWithinApplication().value();
        return pattern.matches(PathContainer.parsePath(path))
                || pattern.matches(PathContainer.parsePath(LooseReading.of(path)))
                || pattern.matches(PathContainer.parsePath(LooseReading.withAnyFormat(path)));
    }

    private static PathPatternParser anyCase() {
        PathPatternParser parser = new PathPatternParser();
        parser.setCaseSensitive(false);
        return parser;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CompletionRule rule && rule.text.equals(text);
    }

    @Override
    public int hashCode() {
        return Objects.hash(text);
    }

    @Override
    public String toString() {
        return text.isEmpty() ? "none" : text;
    }
}
