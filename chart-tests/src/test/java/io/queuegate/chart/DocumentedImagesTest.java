package io.queuegate.chart;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The images the documents build and load into a local cluster are those the charts run: the
 * charts' repository and {@code appVersion} (their tag when {@code image.tag} is empty). An image
 * built or loaded under another name would leave the pods pulling one that does not exist.
 */
class DocumentedImagesTest {

    private static final Path ROOT = Repository.root();
    private static final Pattern BUILD = Pattern.compile("docker build .*?-t\\s+(\\S+)");
    private static final Pattern KIND = Pattern.compile("kind load docker-image((?:\\s+[^\\s#]+)+)");
    private static final Pattern MINIKUBE = Pattern.compile("minikube image load\\s+(\\S+)");

    @ParameterizedTest
    @ValueSource(strings = { "docs/deployment.md", "helm/queuegate/README.md" })
    void theDocumentBuildsAndLoadsTheImagesTheChartsRun(String document) throws IOException {
        String text = Files.readString(ROOT.resolve(document));
        List<String> charts = List.of(image("helm/queuegate"), image("helm/demo-shop"));

        assertThat(found(BUILD, text)).as("images %s builds", document).containsOnlyElementsOf(charts).containsAll(charts);
        assertThat(found(KIND, text)).as("images %s loads into kind", document).containsOnlyElementsOf(charts).containsAll(charts);
        assertThat(found(MINIKUBE, text)).as("images %s loads into minikube", document)
                .containsOnlyElementsOf(charts).containsAll(charts);
    }

    @ParameterizedTest
    @ValueSource(strings = { "gateway-app/Dockerfile", "demo-backend/Dockerfile" })
    void eachDockerfileNamesItsChartsImage(String dockerfile) throws IOException {
        List<String> named = found(BUILD, Files.readString(ROOT.resolve(dockerfile)));

        assertThat(named).hasSize(1);
        assertThat(List.of(image("helm/queuegate"), image("helm/demo-shop"))).contains(named.get(0));
    }

    /** {@code repository:appVersion} of a chart. */
    private static String image(String chart) throws IOException {
        Map<String, Object> values = Manifests.asMap(Manifests.springYaml()
                .load(Files.readString(ROOT.resolve(chart).resolve("values.yaml"))));
        Map<String, Object> meta = Manifests.asMap(Manifests.springYaml()
                .load(Files.readString(ROOT.resolve(chart).resolve("Chart.yaml"))));
        return Manifests.at(values, "image.repository") + ":" + meta.get("appVersion");
    }

    private static List<String> found(Pattern command, String text) {
        List<String> images = new ArrayList<>();
        Matcher matcher = command.matcher(text);
        while (matcher.find()) {
            images.addAll(Arrays.asList(matcher.group(1).strip().split("\\s+")));
        }
        return images;
    }
}
