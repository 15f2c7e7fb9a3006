package io.queuegate.chart;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The root of this repository, found from the working directory, which is the module directory
 * under Maven but may be the root when a test runs from an IDE.
 */
final class Repository {

    private Repository() {
    }

    static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null) {
            if (Files.isRegularFile(dir.resolve("helm/queuegate/Chart.yaml"))) {
                return dir;
            }
            dir = dir.getParent();
        }
        throw new IllegalStateException("no helm/queuegate/Chart.yaml above " + Path.of("").toAbsolutePath());
    }
}
