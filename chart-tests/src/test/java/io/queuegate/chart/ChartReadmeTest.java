package io.queuegate.chart;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chart's README lists every value of {@code values.yaml} with its default and its {@code # --}
 * comment, so values.yaml stays the one source: a value added, renamed, given another default or
 * another comment fails here until the README's table is the one this test makes from values.yaml
 * (it writes that table to {@code target/chart-readme-values.md} to paste between the README's
 * markers). Every value must have a comment of its own or sit under a commented one.
 */
class ChartReadmeTest {

    private static final Path CHART = Repository.root().resolve("helm/queuegate");
    private static final String BEGIN = "<!-- values:begin (ChartReadmeTest makes this table from values.yaml) -->";
    private static final String END = "<!-- values:end -->";
    private static final Pattern KEY = Pattern.compile("^(\"?)([A-Za-z0-9_]+)\\1:");
    /** A comment line that continues a description: one space after '#', or none at all. */
    private static final Pattern CONTINUATION = Pattern.compile("^#( \\S.*)?$");
    /** The sentence that introduces an example in a comment: the example is values.yaml's, not the table's. */
    private static final Pattern EXAMPLE = Pattern.compile("\\s*Example[^.]*:$");

    @Test
    void theReadmeListsEveryValueWithItsDefaultAndItsComment() throws IOException {
        String readme = Files.readString(CHART.resolve("README.md"));
        int begin = readme.indexOf(BEGIN);
        int end = readme.indexOf(END);
        assertThat(begin).as("the README's marker %s", BEGIN).isNotNegative();
        assertThat(end).as("the README's marker %s", END).isGreaterThan(begin);
        String expected = table();
        Path target = Path.of("target");
        Files.createDirectories(target);
        Files.writeString(target.resolve("chart-readme-values.md"), expected);

        assertThat(readme.substring(begin + BEGIN.length(), end).strip())
                .as("helm/queuegate/README.md's values table; the expected one is in target/chart-readme-values.md")
                .isEqualTo(expected.strip());
    }

    @Test
    void everyValueHasACommentOfItsOwnOrSitsUnderACommentedOne() throws IOException {
        Map<String, String> documented = documented();
        List<String> undocumented = new ArrayList<>();
        leaves("", values(), undocumented, documented);

        assertThat(undocumented).as("values of values.yaml with no '# --' comment on them or above them").isEmpty();
    }

    /** The table: one row per commented value, with its default as JSON. */
    static String table() throws IOException {
        Map<String, Object> values = values();
        JsonMapper json = JsonMapper.builder().build();
        StringBuilder table = new StringBuilder("| value | default | what it is |\n|---|---|---|\n");
        for (Map.Entry<String, String> entry : documented().entrySet()) {
            table.append("| `").append(entry.getKey()).append("` | `")
                    .append(json.writeValueAsString(lookup(values, entry.getKey())).replace("|", "\\|"))
                    .append("` | ").append(entry.getValue().replace("|", "\\|")).append(" |\n");
        }
        return table.toString();
    }

    /** The values that have a {@code # --} comment, in file order, each with its comment as one line. */
    static Map<String, String> documented() throws IOException {
        Map<String, String> documented = new LinkedHashMap<>();
        List<String> path = new ArrayList<>();
        List<Integer> indents = new ArrayList<>();
        List<String> comment = null;
        boolean open = false;
        int listIndent = -1;
        for (String line : Files.readAllLines(CHART.resolve("values.yaml"))) {
            String stripped = line.strip();
            int indent = line.length() - line.stripLeading().length();
            if (stripped.isEmpty()) {
                comment = null;
                continue;
            }
            if (stripped.startsWith("# --")) {
                comment = new ArrayList<>(List.of(stripped.substring(4).strip()));
                open = true;
                continue;
            }
            if (stripped.startsWith("#")) {
                // An indented comment line is an example: the description ends before it.
                if (comment != null && open && CONTINUATION.matcher(stripped).matches()) {
                    comment.add(stripped.substring(1).strip());
                }
                else {
                    open = false;
                }
                continue;
            }
            if (listIndent >= 0 && (indent > listIndent || stripped.startsWith("- ") && indent == listIndent)) {
                comment = null;
                continue;
            }
            listIndent = -1;
            if (stripped.startsWith("- ")) {
                listIndent = indent;
                comment = null;
                continue;
            }
            Matcher key = KEY.matcher(stripped);
            if (!key.find()) {
                comment = null;
                continue;
            }
            while (!indents.isEmpty() && indents.get(indents.size() - 1) >= indent) {
                indents.remove(indents.size() - 1);
                path.remove(path.size() - 1);
            }
            path.add(key.group(2));
            indents.add(indent);
            if (comment != null) {
                documented.put(String.join(".", path), EXAMPLE.matcher(String.join(" ", comment)).replaceAll(""));
            }
            comment = null;
        }
        return documented;
    }

    private static Map<String, Object> values() throws IOException {
        return Manifests.asMap(Manifests.springYaml().load(Files.readString(CHART.resolve("values.yaml"))));
    }

    /** A value by its dotted path (keys of values.yaml hold no dots). */
    private static Object lookup(Map<String, Object> values, String dotted) {
        Object node = values;
        for (String key : dotted.split("\\.")) {
            node = Manifests.asMap(node).get(key);
        }
        return node;
    }

    private static void leaves(String prefix, Map<String, Object> node, List<String> undocumented,
            Map<String, String> documented) {
        node.forEach((key, value) -> {
            String path = prefix.isEmpty() ? key : prefix + "." + key;
            if (documented.keySet().stream().anyMatch(doc -> path.equals(doc) || path.startsWith(doc + "."))) {
                return;
            }
            if (value instanceof Map<?, ?> map && !map.isEmpty()) {
                leaves(path, Manifests.asMap(value), undocumented, documented);
            }
            else {
                undocumented.add(path);
            }
        });
    }
}
