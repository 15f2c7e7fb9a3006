package io.queuegate.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The benchmarks {@code bench/run} runs are the ones its header describes, its refusal names and
 * the README's layout lists: a bench added in one place only is found here, not by a reader.
 */
class BenchListTest {

    /** Every label of the script's {@code case}, however written: {@code a)} or {@code a|b)}, alone or before its commands. */
    private static final Pattern LABEL = Pattern.compile("(?m)^\\s*([a-z][a-z-]*(?:\\|[a-z][a-z-]*)*)\\)");
    private static final Pattern HEADER = Pattern.compile("(?m)^#\\s+bench/run ([a-z-]+)");
    private static final Pattern KNOWN = Pattern.compile("\\(known: ([a-z, -]+)\\)");
    private static final Pattern README_ROW = Pattern.compile("(?m)^\\| `bench/` \\|.*?`bench/run <name>`: ([^;]+);");

    @Test
    void everyBenchmarkIsDescribedNamedWhenRefusedAndListedInTheReadme() throws IOException {
        Path root = PackageGraphTest.Repository.root();
        String script = Files.readString(root.resolve("bench/run"));
        // What bench/run says it knows when it refuses a name: the list the others must match.
        Matcher known = KNOWN.matcher(script);
        assertThat(known.find()).as("bench/run names the known benchmarks when refusing one").isTrue();
        List<String> names = List.of(known.group(1).split(", "));
        assertThat(names).as("bench/run's known benchmarks").contains("throughput", "join-ab", "crowd");

        List<String> labels = new ArrayList<>();
        all(LABEL, script).forEach(label -> labels.addAll(List.of(label.split("\\|"))));
        assertThat(labels).as("bench/run's case labels").containsExactlyElementsOf(names);
        assertThat(all(HEADER, script)).as("bench/run's header").containsExactlyElementsOf(names);

        Matcher row = README_ROW.matcher(Files.readString(root.resolve("README.md")));
        assertThat(row.find()).as("the README's layout row for bench/").isTrue();
        assertThat(List.of(row.group(1).replace("`", "").split(", "))).as("the README's list")
                .containsExactlyElementsOf(names);
    }

    private static List<String> all(Pattern pattern, String text) {
        List<String> found = new ArrayList<>();
        Matcher matcher = pattern.matcher(text);
        while (matcher.find()) {
            found.add(matcher.group(1));
        }
        return found;
    }
}
