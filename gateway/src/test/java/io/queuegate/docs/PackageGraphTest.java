package io.queuegate.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The library's packages depend on each other without cycles, and the package map in
 * {@code docs/design.md} is the real one: its "depends on" column lists exactly the packages each
 * package's classes use, so the map a newcomer reads cannot drift from the code.
 */
class PackageGraphTest {

    private static final String ROOT = "io.queuegate";
    private static final Pattern SLICE = Pattern.compile("io\\.queuegate\\.(\\w+)(\\..*)?");
    private static final Pattern ROW = Pattern.compile("^\\| `io\\.queuegate\\.(\\w+)` \\|[^|]*\\| ([^|]*)\\|\\s*$");

    private final JavaClasses classes = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
            .importPackages(ROOT);

    @Test
    void thePackagesDependOnEachOtherWithoutCycles() {
        slices().matching("io.queuegate.(*)..").should().beFreeOfCycles().check(classes);
    }

    @Test
    void theDesignDocsPackageMapIsTheRealGraph() throws IOException {
        Map<String, Set<String>> graph = new TreeMap<>();
        for (JavaClass type : classes) {
            String from = slice(type.getPackageName());
            if (from == null) {
                continue;
            }
            Set<String> targets = graph.computeIfAbsent(from, key -> new TreeSet<>());
            for (Dependency dependency : type.getDirectDependenciesFromSelf()) {
                String to = slice(dependency.getTargetClass().getPackageName());
                if (to != null && !to.equals(from)) {
                    targets.add(to);
                }
            }
        }
        Map<String, Set<String>> documented = new TreeMap<>();
        for (String line : Files.readAllLines(Repository.root().resolve("docs/design.md"))) {
            Matcher row = ROW.matcher(line);
            if (row.matches() && !row.group(1).equals("app")) {
                Set<String> targets = new TreeSet<>();
                for (String target : row.group(2).split(",")) {
                    String name = target.trim().replace("`", "");
                    if (!name.isEmpty() && !name.equals("nothing")) {
                        targets.add(name);
                    }
                }
                documented.put(row.group(1), targets);
            }
        }
        assertThat(documented).as("docs/design.md's package map (package -> what it depends on) against the "
                + "classes; the real graph is %s", graph).isEqualTo(graph);
    }

    private static String slice(String packageName) {
        Matcher matcher = SLICE.matcher(packageName);
        return matcher.matches() ? matcher.group(1) : null;
    }

    /** The repository root: the nearest directory upwards holding both lua/ and pom.xml. */
    static final class Repository {

        static Path root() {
            Path dir = Path.of("").toAbsolutePath();
            while (dir != null && !(Files.isDirectory(dir.resolve("lua")) && Files.exists(dir.resolve("pom.xml")))) {
                dir = dir.getParent();
            }
            if (dir == null) {
                throw new IllegalStateException("no repository root above " + Path.of("").toAbsolutePath());
            }
            return dir;
        }
    }
}
