package io.queuegate.chart;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static io.queuegate.chart.Manifests.at;
import static io.queuegate.chart.Manifests.map;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The values files docs/deployment.md and the chart's README show for the chart render as written,
 * with the {@code --set} flags of the install command each document shows beside them, and what they
 * set reaches the gateway's configuration. A reader copies these files; a chart (or schema) that
 * refuses them, or drops what they set, fails here.
 */
class ChartDocumentedValuesTest {

    private static final List<Path> DOCS = List.of(Repository.root().resolve("docs/deployment.md"),
            Repository.root().resolve("helm/queuegate/README.md"));
    private static final Pattern SET_FLAG = Pattern.compile("--set\\s+(\\S+)");

    private static Helm helm;

    @TempDir
    Path scratch;

    @BeforeAll
    static void findHelm() {
        helm = Helm.find();
    }

    /** A fenced code block of a document: the document, its language, the line it starts on and its text. */
    record Block(Path doc, String language, int line, String text) {

        @Override
        public String toString() {
            return Repository.root().relativize(doc) + " line " + line;
        }
    }

    static List<Block> blocks(Path doc) throws IOException {
        List<Block> blocks = new ArrayList<>();
        List<String> lines = Files.readAllLines(doc);
        for (int i = 0; i < lines.size(); i++) {
            String fence = lines.get(i).strip();
            if (!fence.startsWith("```")) {
                continue;
            }
            int start = i;
            StringBuilder text = new StringBuilder();
            while (++i < lines.size() && !lines.get(i).strip().equals("```")) {
                text.append(lines.get(i)).append('\n');
            }
            blocks.add(new Block(doc, fence.substring(3).strip(), start + 1, text.toString()));
        }
        return blocks;
    }

    /** The top-level keys of the chart's values.yaml: a YAML block that sets one of them is a values file of the chart. */
    private static Set<String> chartValueKeys() throws IOException {
        return Manifests.asMap(Manifests.springYaml()
                .load(Files.readString(Repository.root().resolve("helm/queuegate/values.yaml")))).keySet();
    }

    static Stream<Block> valuesFiles() throws IOException {
        List<Block> files = new ArrayList<>();
        for (Path doc : DOCS) {
            files.addAll(valuesFiles(doc));
        }
        return files.stream();
    }

    static List<Block> valuesFiles(Path doc) throws IOException {
        Set<String> keys = chartValueKeys();
        return blocks(doc).stream()
                .filter(block -> block.language().equals("yaml"))
                .filter(block -> Manifests.springYaml().load(block.text()) instanceof Map<?, ?> values
                        && values.keySet().stream().anyMatch(keys::contains))
                .toList();
    }

    /** The {@code --set key=value} flags of the document's {@code helm install} that takes {@code -f my-values.yaml}. */
    static List<String> installSets(Path doc) throws IOException {
        Block install = blocks(doc).stream()
                .filter(block -> block.language().equals("sh"))
                .filter(block -> block.text().contains("helm install queuegate helm/queuegate")
                        && block.text().contains("-f my-values.yaml"))
                .findFirst()
                .orElseThrow(() -> new AssertionError(doc + " shows no `helm install ... -f my-values.yaml`"));
        List<String> sets = new ArrayList<>();
        Matcher matcher = SET_FLAG.matcher(install.text());
        while (matcher.find()) {
            sets.add(matcher.group(1));
        }
        return sets;
    }

    @Test
    void eachDocumentShowsValuesFilesAndTheInstallCommandTheyGoWith() throws IOException {
        for (Path doc : DOCS) {
            List<Block> files = valuesFiles(doc);

            assertThat(files).as("values files found in %s", doc).hasSizeGreaterThanOrEqualTo(2);
            assertThat(files).anySatisfy(block -> assertThat(block.text()).startsWith("# my-values.yaml"));
            assertThat(installSets(doc)).as(doc.toString()).contains("queuegate.token.existingSecret=queuegate-token")
                    .anySatisfy(set -> assertThat(set).startsWith("redis.host="));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("valuesFiles")
    void documentedValuesRenderAsWrittenAndReachTheGatewayConfiguration(Block block) throws IOException {
        Map<String, Object> given = Manifests.asMap(Manifests.springYaml().load(block.text()));
        assertThat(chartValueKeys()).as("top-level keys of the values file at %s", block).containsAll(given.keySet());
        Path file = Files.writeString(scratch.resolve("values.yaml"), block.text());
        List<String> args = new ArrayList<>(List.of("-f", file.toString()));
        Map<String, Object> effective = new LinkedHashMap<>(given);
        for (String set : installSets(block.doc())) {
            args.addAll(List.of("--set", set));
            int equals = set.indexOf('=');
            put(effective, set.substring(0, equals), set.substring(equals + 1));
        }

        Helm.Result result = helm.templateResult(args.toArray(String[]::new));

        assertThat(result.exitCode()).as("the values file at %s, rendered as written: %s", block, result).isZero();
        Manifests manifests = Manifests.parse(result.out());
        Map<String, Object> config = manifests.applicationConfig();
        if (given.containsKey("routes")) {
            assertThat(at(config, "spring.cloud.gateway.server.webflux.routes")).as("routes").isEqualTo(given.get("routes"));
        }
        if (given.containsKey("products")) {
            assertThat(at(config, "queuegate.products")).as("products").isEqualTo(given.get("products"));
        }
        if (given.containsKey("redis")) {
            assertRedis(map(effective, "redis"), map(config, "spring.data.redis"));
        }
        if (given.containsKey("extraConfig")) {
            assertContains(config, map(given, "extraConfig"), "extraConfig");
        }
        if (at(given, "queuegate.identity.source") != null) {
            assertThat(at(config, "queuegate.identity.source")).isEqualTo(at(given, "queuegate.identity.source"));
        }
        if (Boolean.TRUE.equals(at(effective, "console.enabled"))) {
            assertThat(at(config, "management.endpoints.web.exposure.include").toString().split(","))
                    .as("the exposure with console.enabled").contains("queueconsole", "queues", "health", "prometheus");
        }
        assertEnabledObjects(effective, manifests);
    }

    /** What the Redis block says, in the {@code spring.data.redis} properties of its mode. */
    private static void assertRedis(Map<String, Object> redis, Map<String, Object> rendered) {
        Object mode = redis.getOrDefault("mode", "standalone");
        if (mode.equals("standalone")) {
            assertThat(rendered).containsEntry("host", redis.get("host"));
            assertThat(rendered).doesNotContainKeys("sentinel", "cluster");
            if (redis.containsKey("port")) {
                assertThat(rendered).containsEntry("port", redis.get("port"));
            }
        }
        else if (mode.equals("sentinel")) {
            assertThat(at(rendered, "sentinel.master")).isEqualTo(at(redis, "sentinel.master"));
            assertThat(at(rendered, "sentinel.nodes")).isEqualTo(String.join(",", Manifests.list(redis, "sentinel.nodes")
                    .stream().map(Object::toString).toList()));
        }
        else {
            assertThat(at(rendered, "cluster.nodes")).isEqualTo(String.join(",", Manifests.list(redis, "cluster.nodes")
                    .stream().map(Object::toString).toList()));
        }
        if (redis.containsKey("timeout")) {
            assertThat(rendered).containsEntry("timeout", redis.get("timeout"));
        }
        if (Boolean.TRUE.equals(at(redis, "tls.enabled"))) {
            assertThat(at(rendered, "ssl.enabled")).isEqualTo(true);
        }
    }

    /** Each optional part the values file turns on is rendered. */
    private static void assertEnabledObjects(Map<String, Object> values, Manifests manifests) {
        Map<String, String> kinds = Map.of(
                "autoscaling.hpa.enabled", "HorizontalPodAutoscaler",
                "metrics.serviceMonitor.enabled", "ServiceMonitor",
                "alerts.enabled", "PrometheusRule",
                "ingress.enabled", "Ingress",
                "networkPolicy.enabled", "NetworkPolicy");
        kinds.forEach((switchPath, kind) -> {
            if (Boolean.TRUE.equals(at(values, switchPath))) {
                assertThat(manifests.ofKind(kind)).as("%s with %s", kind, switchPath).isNotEmpty();
            }
        });
        if (Boolean.TRUE.equals(at(values, "autoscaling.hpa.enabled"))) {
            Map<String, Object> hpa = map(manifests.ofKind("HorizontalPodAutoscaler").get(0), "spec");
            assertThat(hpa).containsEntry("maxReplicas", at(values, "autoscaling.hpa.maxReplicas"));
        }
        if (Boolean.TRUE.equals(at(values, "dashboards.enabled"))) {
            assertThat(manifests.ofKind("ConfigMap")).anySatisfy(
                    configMap -> assertThat(at(configMap, "metadata.name")).asString().endsWith("-dashboards"));
        }
    }

    /** Every value the values file sets under {@code extraConfig} is in the rendered configuration, as given. */
    private static void assertContains(Map<String, Object> config, Map<String, Object> given, String path) {
        given.forEach((key, value) -> {
            Object rendered = config.get(key);
            if (value instanceof Map<?, ?>) {
                assertThat(rendered).as("%s.%s in the rendered configuration", path, key).isInstanceOf(Map.class);
                assertContains(Manifests.asMap(rendered), Manifests.asMap(value), path + "." + key);
            }
            else {
                assertThat(rendered).as("%s.%s in the rendered configuration", path, key).isEqualTo(value);
            }
        });
    }

    /** Sets a dotted key in nested maps, as {@code --set} does for a plain string. */
    private static void put(Map<String, Object> values, String dotted, String value) {
        String[] path = dotted.split("\\.");
        Map<String, Object> node = values;
        for (int i = 0; i < path.length - 1; i++) {
            Object child = node.get(path[i]);
            Map<String, Object> copy = child instanceof Map<?, ?> ? new LinkedHashMap<>(Manifests.asMap(child))
                    : new LinkedHashMap<>();
            node.put(path[i], copy);
            node = copy;
        }
        node.put(path[path.length - 1], value);
    }
}
