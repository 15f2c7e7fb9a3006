package io.queuegate.chart;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Representer;
import org.yaml.snakeyaml.resolver.Resolver;

import static org.assertj.core.api.Assertions.fail;

/**
 * The Kubernetes objects of one {@code helm template} run, with paths into their YAML trees.
 */
record Manifests(List<Map<String, Object>> objects) {

    static Manifests parse(String multiDocumentYaml) {
        List<Map<String, Object>> objects = new ArrayList<>();
        for (Object document : new Yaml().loadAll(multiDocumentYaml)) {
            if (document != null) {
                objects.add(asMap(document));
            }
        }
        return new Manifests(List.copyOf(objects));
    }

    /** The one object of that kind and name; fails the test when it is missing. */
    Map<String, Object> get(String kind, String name) {
        return find(kind, name).orElseGet(() -> fail("no " + kind + " " + name + " among " + names()));
    }

    Optional<Map<String, Object>> find(String kind, String name) {
        return objects.stream()
                .filter(object -> kind.equals(object.get("kind")) && name.equals(at(object, "metadata.name")))
                .findFirst();
    }

    List<Map<String, Object>> ofKind(String kind) {
        return objects.stream().filter(object -> kind.equals(object.get("kind"))).toList();
    }

    List<String> names() {
        return objects.stream().map(object -> object.get("kind") + "/" + at(object, "metadata.name")).toList();
    }

    /** The gateway Deployment's single container. */
    Map<String, Object> gatewayContainer() {
        List<Object> containers = list(get("Deployment", "qg-queuegate"), "spec.template.spec.containers");
        return asMap(containers.get(0));
    }

    /** The application.yaml the chart rendered into its ConfigMap, parsed as the gateway parses it. */
    Map<String, Object> applicationConfig() {
        String text = (String) at(get("ConfigMap", "qg-queuegate"), "data.application\\.yaml");
        return asMap(springYaml().load(text));
    }

    /**
     * A YAML parser that reads as Spring Boot's does: an unquoted timestamp ({@code opens-at:
     * 2026-12-24T10:00:00Z}) stays the text it is, for the binder to convert, instead of becoming
     * a {@code Date} in the JVM's time zone.
     */
    static Yaml springYaml() {
        LoaderOptions loading = new LoaderOptions();
        DumperOptions dumping = new DumperOptions();
        return new Yaml(new SafeConstructor(loading), new Representer(dumping), dumping, loading, new Resolver() {
            @Override
            public void addImplicitResolver(Tag tag, java.util.regex.Pattern regexp, String first, int limit) {
                if (!Tag.TIMESTAMP.equals(tag)) {
                    super.addImplicitResolver(tag, regexp, first, limit);
                }
            }
        });
    }

    /** The value of the container env var {@code name}, as its YAML map ({@code value} or {@code valueFrom}). */
    Optional<Map<String, Object>> env(String name) {
        return list(gatewayContainer(), "env").stream()
                .map(Manifests::asMap)
                .filter(entry -> name.equals(entry.get("name")))
                .findFirst();
    }

    /**
     * The value at a dot-separated path; a key that itself holds a dot is written with {@code \.}
     * (like kubectl's jsonpath). Missing keys give {@code null}.
     */
    static Object at(Object tree, String path) {
        Object node = tree;
        for (String key : path.split("(?<!\\\\)\\.")) {
            if (!(node instanceof Map<?, ?> map)) {
                return null;
            }
            node = map.get(key.replace("\\.", "."));
        }
        return node;
    }

    static Map<String, Object> map(Object tree, String path) {
        Object node = at(tree, path);
        return node == null ? fail("nothing at " + path) : asMap(node);
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object tree, String path) {
        Object node = at(tree, path);
        if (!(node instanceof List<?>)) {
            return fail("no list at " + path + " but " + node);
        }
        return (List<Object>) node;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> asMap(Object node) {
        if (!(node instanceof Map<?, ?>)) {
            return fail("not a map: " + node);
        }
        return (Map<String, Object>) node;
    }
}
