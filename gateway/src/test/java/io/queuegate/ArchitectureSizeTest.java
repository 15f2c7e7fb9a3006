package io.queuegate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No main-source class of the gateway is over {@value #MAX_LINES} lines: a class that grows past
 * that does more than one job, and is split along its jobs into small classes named for what they
 * do, in the package of their concern.
 *
 * <p>The one exception is a {@code @ConfigurationProperties} record whose length is its Javadoc (each
 * property documented where it is bound): it may be longer only while its lines outside comments
 * stay within {@value #MAX_LINES}; its logic (checks, folding) lives in small classes beside it.
 */
class ArchitectureSizeTest {

    static final int MAX_LINES = 300;

    /** The one class that may be longer, by its Javadoc. */
    private static final String PROPERTIES = "io/queuegate/config/QueueGateProperties.java";

    private static final Path SOURCES = sources();

    @Test
    void noMainSourceClassIsOverTheLimit() throws IOException {
        Map<String, Integer> over = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path file : (Iterable<Path>) files.filter(path -> path.toString().endsWith(".java"))::iterator) {
                String name = SOURCES.relativize(file).toString().replace('\\', '/');
                List<String> lines = Files.readAllLines(file);
                if (lines.size() <= MAX_LINES) {
                    continue;
                }
                if (name.equals(PROPERTIES) && configurationPropertiesLongByItsJavadoc(lines)) {
                    continue;
                }
                over.put(name, lines.size());
            }
        }
        assertThat(over).as("main-source classes over %d lines (split them along their jobs)", MAX_LINES).isEmpty();
    }

    @Test
    void thePropertiesAreLongOnlyByTheirJavadoc() throws IOException {
        List<String> lines = Files.readAllLines(SOURCES.resolve(PROPERTIES));

        assertThat(lines.stream().anyMatch(line -> line.startsWith("@ConfigurationProperties"))).isTrue();
        assertThat(outsideComments(lines)).as("QueueGateProperties' lines outside comments").isLessThanOrEqualTo(
                MAX_LINES);
    }

    private static boolean configurationPropertiesLongByItsJavadoc(List<String> lines) {
        return lines.stream().anyMatch(line -> line.startsWith("@ConfigurationProperties"))
                && outsideComments(lines) <= MAX_LINES;
    }

    /** The lines that are not part of a comment (blank lines count: they are the code's). */
    static int outsideComments(List<String> lines) {
        int count = 0;
        boolean inComment = false;
        for (String line : lines) {
            String text = line.strip();
            if (inComment) {
                inComment = !text.contains("*/");
            }
            else if (text.startsWith("/*")) {
                inComment = !text.contains("*/");
            }
            else if (!text.startsWith("//")) {
                count++;
            }
        }
        return count;
    }

    /** The gateway's main sources, from the module (as the build runs it) or the repository root. */
    private static Path sources() {
        for (Path candidate : List.of(Path.of("src/main/java"), Path.of("gateway/src/main/java"))) {
            if (Files.isDirectory(candidate.resolve("io/queuegate"))) {
                return candidate;
            }
        }
        throw new IllegalStateException("no gateway sources under " + Path.of("").toAbsolutePath());
    }
}
