package io.queuegate.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/design.md's module map is the build's: every module of the root POM, in its order, with its
 * artifact and what it takes of QueueGate's other modules (type, classifier and scope included),
 * read from the POMs.
 */
class ModuleGraphTest {

    private static final Pattern ROW = Pattern.compile("^\\| `([^`]+)` \\| `([^`]+)` \\|[^|]*\\| ([^|]*)\\|\\s*$");

    @Test
    void theDesignDocsModuleMapIsTheBuilds() throws Exception {
        Path root = PackageGraphTest.Repository.root();
        Map<String, String> built = new LinkedHashMap<>();
        for (String module : children(pom(root.resolve("pom.xml")).getDocumentElement(), "modules", "module")) {
            Element project = pom(root.resolve(module).resolve("pom.xml")).getDocumentElement();
            built.put(module + " " + child(project, "artifactId"), dependencies(project));
        }

        assertThat(documented()).as("docs/design.md's module map (module artifact -> QueueGate dependencies)")
                .containsExactlyEntriesOf(built);
    }

    /** The project's dependencies on QueueGate's own artifacts, as the map writes them. */
    private static String dependencies(Element project) {
        List<String> written = new ArrayList<>();
        NodeList dependencies = project.getElementsByTagName("dependency");
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element dependency = (Element) dependencies.item(i);
            // Only the project's own dependencies, not those of its plugins or its management.
            if (!"dependencies".equals(dependency.getParentNode().getNodeName())
                    || dependency.getParentNode().getParentNode() != project
                    || !"io.queuegate".equals(child(dependency, "groupId"))) {
                continue;
            }
            StringBuilder entry = new StringBuilder("`").append(child(dependency, "artifactId")).append('`');
            if ("test-jar".equals(child(dependency, "type"))) {
                entry.append(" test-jar");
            }
            if (child(dependency, "classifier") != null) {
                entry.append(' ').append(child(dependency, "classifier"));
            }
            if (child(dependency, "scope") != null) {
                entry.append(" (").append(child(dependency, "scope")).append(')');
            }
            written.add(entry.toString());
        }
        return written.isEmpty() ? "nothing" : String.join(", ", written);
    }

    private static Map<String, String> documented() throws IOException {
        List<String> lines = Files.readAllLines(PackageGraphTest.Repository.root().resolve("docs/design.md"));
        int start = lines.indexOf("## Module map");
        assertThat(start).as("docs/design.md's section 'Module map'").isNotNegative();
        Map<String, String> rows = new LinkedHashMap<>();
        for (String line : lines.subList(start, lines.size())) {
            if (line.startsWith("## ") && !line.equals("## Module map")) {
                break;
            }
            Matcher row = ROW.matcher(line);
            if (row.matches()) {
                rows.put(row.group(1) + " " + row.group(2), row.group(3).strip());
            }
        }
        return rows;
    }

    private static Document pom(Path file) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
    }

    private static List<String> children(Element parent, String list, String item) {
        List<String> values = new ArrayList<>();
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(list)) {
                NodeList items = element.getElementsByTagName(item);
                for (int i = 0; i < items.getLength(); i++) {
                    values.add(items.item(i).getTextContent().strip());
                }
            }
        }
        return values;
    }

    /** The text of the element's own child of that name, or {@code null}. */
    private static String child(Element parent, String name) {
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                return element.getTextContent().strip();
            }
        }
        return null;
    }
}
