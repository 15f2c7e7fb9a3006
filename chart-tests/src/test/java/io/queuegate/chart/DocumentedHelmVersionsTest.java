package io.queuegate.chart;

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
 * The documents name two Helms and say which is which: the one the tests run, embedded by
 * helm-java, and the command line {@code .ci/install-helm} installs from an npm package. Each
 * version they name is one of those two, as the embedded library reports it and as the script's
 * header records it beside the package it pins.
 */
class DocumentedHelmVersionsTest {

    private static final Path ROOT = Repository.root();
    private static final List<String> DOCUMENTS = List.of("README.md", "docs/deployment.md", "helm/queuegate/README.md");
    private static final Pattern VERSION = Pattern.compile("Helm (v\\d+\\.\\d+\\.\\d+)");
    private static final Pattern PACKAGE = Pattern.compile("(?m)^PACKAGE='([^']+)'");

    @Test
    void theDocumentsNameTheTestsHelmAndTheScriptsHelmForWhatEachIs() throws IOException {
        String embedded = Helm.find().version();
        String script = Files.readString(ROOT.resolve(".ci/install-helm"));
        Matcher pinned = PACKAGE.matcher(script);
        assertThat(pinned.find()).as(".ci/install-helm pins its npm package").isTrue();
        String header = script.substring(0, script.indexOf("set -euo pipefail"));
        String packageVersion = pinned.group(1).substring(pinned.group(1).lastIndexOf('@') + 1);
        assertThat(header).as(".ci/install-helm's header names the package it pins")
                .contains(pinned.group(1).substring(0, pinned.group(1).lastIndexOf('@')) + " " + packageVersion);
        List<String> headerVersions = versions(header);
        assertThat(headerVersions).as("the Helms .ci/install-helm's header names").contains(embedded).hasSize(2);
        String installed = headerVersions.stream().filter(version -> !version.equals(embedded)).findFirst().orElseThrow();

        for (String document : DOCUMENTS) {
            String text = Files.readString(ROOT.resolve(document));
            assertThat(versions(text)).as("the Helm versions %s names", document).containsOnly(embedded, installed);
        }
        assertThat(Files.readString(ROOT.resolve("docs/deployment.md"))).as("docs/deployment.md names the npm package")
                .contains(pinned.group(1));
    }

    private static List<String> versions(String text) {
        List<String> found = new ArrayList<>();
        Matcher matcher = VERSION.matcher(text);
        while (matcher.find()) {
            found.add(matcher.group(1));
        }
        return found;
    }
}
