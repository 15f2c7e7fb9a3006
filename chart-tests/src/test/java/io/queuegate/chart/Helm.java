package io.queuegate.chart;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * Helm, run in this JVM: helm-java carries Helm's own Go packages as a native library, so the chart
 * tests need no helm binary and no network. Arguments are written as on helm's command line
 * ({@code -f}, {@code --set}, {@code --set-json}), so each test reads as the command an operator
 * would type.
 */
final class Helm {

    private static final String RELEASE = "qg";
    private static final String NAMESPACE = "shop";

    private static final Helm EMBEDDED = new Helm(Repository.root());

    private final Path repository;

    private Helm(Path repository) {
        this.repository = repository;
    }

    /**
     * The embedded Helm. Its native library is loaded here, so a platform without one fails the
     * first test that needs Helm, with the library's own message, instead of every render failing
     * in a way a test expecting a failure could mistake for the one it waits for.
     */
    static Helm find() {
        EMBEDDED.version();
        return EMBEDDED;
    }

    /** Helm's version as its library reports it, e.g. {@code v3.17.4}. */
    String version() {
        return com.marcnuri.helm.Helm.version().call();
    }

    Path chart(String name) {
        return repository.resolve("helm").resolve(name);
    }

    /** {@code helm lint --strict} of one chart of this repository, with these values files layered in order. */
    Result lint(String chartName, String... valuesFiles) {
        List<String> command = new ArrayList<>(List.of("lint", "--strict", chartName));
        for (String file : valuesFiles) {
            command.addAll(List.of("-f", file));
        }
        // helm-java's lint takes no values, so the values go where lint reads them: a copy of the
        // chart whose values.yaml is the chart's own with the files coalesced on top, as helm lint -f does.
        return withScratch(scratch -> {
            Path chart = valuesFiles.length == 0 ? chart(chartName) : chartWithValues(chartName, valuesFiles, scratch);
            LintResult lint;
            try {
                lint = new com.marcnuri.helm.Helm(chart).lint().strict().call();
            }
            catch (IllegalStateException ex) {
                return new Result(command, 1, "", ex.getMessage());
            }
            String messages = String.join("\n", lint.getMessages());
            return lint.isFailed() ? new Result(command, 1, "", messages) : new Result(command, 0, messages, "");
        });
    }

    /** {@code helm template} of the QueueGate chart as release {@code qg} in namespace {@code shop}, which must succeed. */
    Manifests template(String... args) {
        return templateOf("queuegate", RELEASE, args);
    }

    /** {@code helm template} of the QueueGate chart as release {@code qg} in namespace {@code shop}, whatever its outcome. */
    Result templateResult(String... args) {
        return templateResultOf("queuegate", RELEASE, args);
    }

    /** {@code helm template} of any chart of this repository, which must succeed. */
    Manifests templateOf(String chartName, String release, String... args) {
        Result result = templateResultOf(chartName, release, args);
        if (result.exitCode() != 0) {
            throw new AssertionError("helm template failed: " + result);
        }
        return Manifests.parse(result.out());
    }

    /** {@code helm template} of any chart of this repository, whatever its outcome. */
    Result templateResultOf(String chartName, String release, String... args) {
        List<String> command = new ArrayList<>(List.of("template", release, chartName, "--namespace", NAMESPACE));
        command.addAll(List.of(args));
        return withScratch(scratch -> {
            TemplateCommand template = new com.marcnuri.helm.Helm(chart(chartName)).template()
                    .withName(release)
                    .withNamespace(NAMESPACE);
            applyArguments(template, List.of(args), scratch);
            try {
                return new Result(command, 0, template.call(), "");
            }
            catch (IllegalStateException ex) {
                // helm-java reports every failed render, a schema violation or a `fail` in a template, this way
                return new Result(command, 1, "", ex.getMessage());
            }
        });
    }

    /**
     * Applies command-line arguments in helm's precedence: every {@code -f} file, then every
     * {@code --set-json}, then every {@code --set}. helm-java takes a {@code --set} value literally
     * (commas included) apart from typing numbers and booleans, so one flag sets one key.
     */
    private static void applyArguments(TemplateCommand template, List<String> args, Path scratch) {
        List<Path> valuesFiles = new ArrayList<>();
        List<Path> jsonFiles = new ArrayList<>();
        Map<String, String> sets = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String flag = args.get(i);
            if (i + 1 >= args.size()) {
                throw new IllegalArgumentException(flag + " needs a value");
            }
            String value = args.get(++i);
            switch (flag) {
                case "-f", "--values" -> valuesFiles.add(Path.of(value));
                case "--set" -> {
                    String[] assignment = assignment(flag, value);
                    sets.put(assignment[0], assignment[1]);
                }
                case "--set-json" -> {
                    String[] assignment = assignment(flag, value);
                    jsonFiles.add(writeYaml(scratch, nested(assignment[0], new Yaml().load(assignment[1]))));
                }
                default -> throw new IllegalArgumentException("the embedded Helm takes -f, --set and --set-json, not " + flag);
            }
        }
        valuesFiles.forEach(template::withValuesFile);
        jsonFiles.forEach(template::withValuesFile);
        sets.forEach(template::set);
    }

    private static String[] assignment(String flag, String text) {
        int equals = text.indexOf('=');
        if (equals <= 0) {
            throw new IllegalArgumentException(flag + " wants key=value, got " + text);
        }
        return new String[] {text.substring(0, equals), text.substring(equals + 1)};
    }

    /** {@code a.b=value} as the map {@code {a: {b: value}}}; list indexes are not needed by the tests. */
    private static Map<String, Object> nested(String key, Object value) {
        if (key.contains("[")) {
            throw new IllegalArgumentException("--set-json with an index is not supported: " + key);
        }
        String[] path = key.split("\\.");
        Object node = value;
        for (int i = path.length - 1; i >= 0; i--) {
            Map<String, Object> parent = new LinkedHashMap<>();
            parent.put(path[i], node);
            node = parent;
        }
        return Manifests.asMap(node);
    }

    private Path chartWithValues(String chartName, String[] valuesFiles, Path scratch) {
        Path source = chart(chartName);
        // the chart keeps its directory name: lint reports by it and the name must match Chart.yaml
        Path copy = scratch.resolve(chartName);
        copyTree(source, copy);
        Map<String, Object> values = readYaml(source.resolve("values.yaml"));
        for (String file : valuesFiles) {
            values = coalesce(values, readYaml(source.resolve(file)));
        }
        try {
            Files.writeString(copy.resolve("values.yaml"), yaml().dump(values));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return copy;
    }

    /** Helm's coalescing of user values over defaults: maps merge, anything else is replaced, null removes. */
    private static Map<String, Object> coalesce(Map<String, Object> defaults, Map<String, Object> overrides) {
        Map<String, Object> result = new LinkedHashMap<>(defaults);
        overrides.forEach((key, value) -> {
            Object current = result.get(key);
            if (value == null) {
                result.remove(key);
            }
            else if (value instanceof Map<?, ?> && current instanceof Map<?, ?>) {
                result.put(key, coalesce(Manifests.asMap(current), Manifests.asMap(value)));
            }
            else {
                result.put(key, value);
            }
        });
        return result;
    }

    private static Map<String, Object> readYaml(Path file) {
        try {
            Object loaded = new Yaml().load(Files.readString(file));
            return loaded == null ? new LinkedHashMap<>() : Manifests.asMap(loaded);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static Path writeYaml(Path scratch, Map<String, Object> values) {
        try {
            return Files.writeString(Files.createTempFile(scratch, "set-json-", ".yaml"), yaml().dump(values));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static Yaml yaml() {
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        return new Yaml(options);
    }

    private static void copyTree(Path from, Path to) {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path source : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                }
                else {
                    Files.copy(source, target);
                }
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private interface ScratchWork {
        Result run(Path scratch);
    }

    private static Result withScratch(ScratchWork work) {
        Path scratch;
        try {
            scratch = Files.createTempDirectory("queuegate-helm-");
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        try {
            return work.run(scratch);
        }
        finally {
            try (Stream<Path> paths = Files.walk(scratch)) {
                for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                    Files.deleteIfExists(path);
                }
            }
            catch (IOException ex) {
                // a leftover temp file is not worth failing a test over
            }
        }
    }

    /** What one Helm run produced and how it ended: exit code 0 on success, 1 on failure. */
    record Result(List<String> command, int exitCode, String out, String err) {

        @Override
        public String toString() {
            return "helm " + String.join(" ", command) + " -> exit " + exitCode + "\n" + err + out;
        }
    }
}
