package io.queuegate.paths;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.queuegate.config.LooseReading;
import io.queuegate.routes.RouteQueuePolicies;

import org.springframework.cloud.gateway.handler.predicate.PathRoutePredicateFactory;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.http.server.PathContainer;
import org.springframework.util.StringUtils;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * The {@code Path} patterns of the protected routes, read as loosely as a shop could read a request
 * ({@link LooseReading}: any letter case, without a format suffix or a trailing slash), made once
 * per route refresh. For a path that another route took, it says which protected route the path
 * spells and that route's own spelling of it, which Spring Cloud Gateway's case-sensitive
 * {@code Path} predicate matches. A route whose predicates hold no {@code Path} pattern is not
 * read here: the loose reading needs to know its paths.
 */
public final class ProtectedPaths {

    /** No protected route has a path. */
    public static final ProtectedPaths NONE = new ProtectedPaths(List.of(), new String[0]);

    private static final PathPatternParser EXACT = new PathPatternParser();
    private static final PathPatternParser ANY_CASE = anyCase();

    private final List<Entry> entries;
    /**
     * What the protected paths start with, read in any case (their patterns' leading literal
     * segments, none a prefix of another), so a path elsewhere costs one comparison a prefix: with
     * one protected route, one.
     */
    private final String[] prefixes;

    private ProtectedPaths(List<Entry> entries, String[] prefixes) {
        this.entries = entries;
        this.prefixes = prefixes;
    }

    /** The protected routes' paths of this route list, in the list's order. */
    public static ProtectedPaths of(List<Route> routes) {
        List<Entry> entries = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        for (Route route : routes) {
            if (!RouteQueuePolicies.isProtected(route)) {
                continue;
            }
            for (String pattern : pathPatterns(route)) {
                Entry entry = new Entry(route, pattern, ANY_CASE.parse(pattern), EXACT.parse(pattern));
                entries.add(entry);
                String prefix = literalPrefix(pattern);
                if (prefixes.stream().noneMatch(prefix::startsWith)) {
                    prefixes.removeIf(known -> known.startsWith(prefix));
                    prefixes.add(prefix);
                }
            }
        }
        return entries.isEmpty() ? NONE : new ProtectedPaths(List.copyOf(entries), prefixes.toArray(String[]::new));
    }

    /** Whether {@code path} could spell a protected path at all: the one check a path elsewhere pays. */
    public boolean mayMatch(String path) {
        // A shop decodes before it routes (ASP.NET reads /API/%70roducts as /API/products): so does
        // this check, for the few paths that hold an escape. A spelling found through an escape
        // has no clean form and is refused.
        return startsWithAPrefix(path) || path.indexOf('%') >= 0 && startsWithAPrefix(decoded(path));
    }

    private boolean startsWithAPrefix(String path) {
        for (String prefix : prefixes) {
            if (path.regionMatches(true, 0, prefix, 0, prefix.length())) {
                return true;
            }
        }
        return false;
    }

    /** The path with its escapes decoded (UTF-8); as sent when they do not decode, for the shop cannot read them either. */
    private static String decoded(String path) {
        try {
            return StringUtils.uriDecode(path, StandardCharsets.UTF_8);
        }
        catch (IllegalArgumentException ex) {
            return path;
        }
    }

    /**
     * The protected route that {@code path} spells when read loosely, with that route's own
     * spelling of it, or {@code null} when it spells none. The spelling is {@code null} when no
     * spelling the route's patterns match could be made (the path is then refused, never forwarded).
     */
    public Spelling spell(String path) {
        Spelling asSent = spellAsSent(path);
        if (asSent != null || path.indexOf('%') < 0) {
            return asSent;
        }
        // Read as a Java router reads it (decoded, equalsIgnoreCase: İ, ı and ſ are i, i and s), a
        // path whose escapes spell a protected route has no clean spelling: refused, never forwarded.
        String folded = folded(decoded(path));
        for (Entry entry : entries) {
            if (entry.anyCase().matches(PathContainer.parsePath(folded))
                    || entry.anyCase().matches(PathContainer.parsePath(LooseReading.of(folded)))) {
                return new Spelling(entry.route(), null);
            }
        }
        return null;
    }

    /** Each character as {@code String.equalsIgnoreCase} compares it: upper case, then lower. */
    private static String folded(String text) {
        StringBuilder folded = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            folded.append(Character.toLowerCase(Character.toUpperCase(text.charAt(i))));
        }
        return folded.toString();
    }

    private Spelling spellAsSent(String path) {
        String withoutSlash = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        String loose = LooseReading.of(path);
        for (Entry entry : entries) {
            for (String candidate : withoutSlash.equals(loose) ? List.of(loose) : List.of(withoutSlash, loose)) {
                if (entry.anyCase().matches(PathContainer.parsePath(candidate))) {
                    String own = ownSpelling(entry.source(), candidate);
                    boolean matches = own != null && entry.exact().matches(PathContainer.parsePath(own));
                    return new Spelling(entry.route(), matches ? own : null);
                }
            }
        }
        return null;
    }

    /**
     * @param route the protected route the path spells
     * @param path that route's own spelling of it, or {@code null} when none could be made
     */
    public record Spelling(Route route, String path) {
    }

    private record Entry(Route route, String source, PathPattern anyCase, PathPattern exact) {
    }

    /** The route's {@code Path} patterns, as its predicates were configured. */
    static List<String> pathPatterns(Route route) {
        List<String> patterns = new ArrayList<>();
        route.getPredicate().accept(predicate -> {
            if (predicate.getConfig() instanceof PathRoutePredicateFactory.Config path) {
                patterns.addAll(path.getPatterns());
            }
        });
        return patterns;
    }

    /**
     * The path in the pattern's letter case where the pattern has literal segments (and without a
     * format suffix where a literal last segment has none), the path's own segments elsewhere.
     */
    private static String ownSpelling(String pattern, String path) {
        String[] literals = pattern.split("/", -1);
        String[] segments = path.split("/", -1);
        StringBuilder own = new StringBuilder();
        for (int i = 1; i < segments.length; i++) {
            String segment = segments[i];
            if (i < literals.length && isLiteral(literals[i])) {
                if (segment.equalsIgnoreCase(literals[i])
                        || i == segments.length - 1 && LooseReading.withoutSuffix(segment).equalsIgnoreCase(literals[i])) {
                    segment = literals[i];
                }
                else {
                    return null;
                }
            }
            else if (i < literals.length && (literals[i].equals("**") || literals[i].startsWith("{*"))) {
                return own.append(path, offsetOfSegment(path, i), path.length()).toString();
            }
            own.append('/').append(segment);
        }
        return own.toString();
    }

    /** Where the {@code index}th segment of the path starts, at its leading {@code /}. */
    private static int offsetOfSegment(String path, int index) {
        int at = 0;
        for (int i = 1; i < index; i++) {
            at = path.indexOf('/', at + 1);
        }
        return at;
    }

    private static boolean isLiteral(String segment) {
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c == '{' || c == '}' || c == '*' || c == '?') {
                return false;
            }
        }
        return true;
    }

    /** The pattern's leading literal segments in lower case, with their slashes. */
    private static String literalPrefix(String pattern) {
        String[] segments = pattern.split("/", -1);
        StringBuilder prefix = new StringBuilder("/");
        for (int i = 1; i < segments.length - 1 && isLiteral(segments[i]); i++) {
            prefix.append(segments[i].toLowerCase(Locale.ROOT)).append('/');
        }
        return prefix.toString();
    }

    private static PathPatternParser anyCase() {
        PathPatternParser parser = new PathPatternParser();
        parser.setCaseSensitive(false);
        return parser;
    }
}
