package io.queuegate.app;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names a PromQL expression (or a Grafana query such as {@code label_values(m, l)})
 * reads, and the sample names of a Prometheus text scrape. Enough of PromQL for the chart's
 * dashboard and rules: strings, label matchers, ranges and grouping clauses are cut out, and what
 * is left that is neither a function, a keyword nor a number is a metric name.
 */
final class PromQl {

    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "by", "without", "on", "ignoring",
            "group_left", "group_right", "offset", "inf", "nan", "atan2", "start", "end");
    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|`[^`]*`");
    /** Grafana's variable query {@code label_values(selector, label)}: only the selector names a metric. */
    private static final Pattern LABEL_VALUES =
            Pattern.compile("\\blabel_values\\s*\\(\\s*([^,]*?)\\s*,\\s*[a-zA-Z_][a-zA-Z0-9_]*\\s*\\)");
    private static final Pattern LABEL_VALUES_OF_A_LABEL = Pattern.compile("\\blabel_values\\s*\\(\\s*[a-zA-Z_][a-zA-Z0-9_]*\\s*\\)");
    private static final Pattern MATCHERS = Pattern.compile("\\{[^{}]*}");
    private static final Pattern RANGE = Pattern.compile("\\[[^\\[\\]]*]");
    private static final Pattern GROUPING =
            Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^()]*\\)");
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{[^}]*}|\\$[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Pattern IDENTIFIER = Pattern.compile("(?<![a-zA-Z0-9_:.$])[a-zA-Z_:][a-zA-Z0-9_:]*");

    private PromQl() {
    }

    /** The metric names {@code expr} selects, e.g. {@code queuegate_decision_seconds_bucket}. */
    static Set<String> metricNames(String expr) {
        String text = STRING.matcher(expr).replaceAll("\"\"");
        text = LABEL_VALUES.matcher(text).replaceAll(match -> Matcher.quoteReplacement(" " + match.group(1) + " "));
        text = LABEL_VALUES_OF_A_LABEL.matcher(text).replaceAll(" ");
        text = MATCHERS.matcher(text).replaceAll(" ");
        text = RANGE.matcher(text).replaceAll(" ");
        text = GROUPING.matcher(text).replaceAll(" ");
        text = VARIABLE.matcher(text).replaceAll(" ");
        Set<String> names = new TreeSet<>();
        Matcher identifier = IDENTIFIER.matcher(text);
        while (identifier.find()) {
            String name = identifier.group();
            boolean function = text.substring(identifier.end()).stripLeading().startsWith("(");
            if (!function && !KEYWORDS.contains(name.toLowerCase())) {
                names.add(name);
            }
        }
        return names;
    }

    /** The names of the samples in a Prometheus text exposition, e.g. {@code queuegate_joins_total}. */
    static Set<String> sampleNames(String scrape) {
        Set<String> names = new TreeSet<>();
        for (String line : scrape.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher name = IDENTIFIER.matcher(line);
            if (name.lookingAt()) {
                names.add(name.group());
            }
        }
        return names;
    }
}
