package io.queuegate.docs;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the docs tell a shop to paste into its own gateway's {@code pom.xml} is what the build makes
 * and what {@code examples/shop-gateway} (built with every change) uses: the README's fragment names
 * the starter's artifact and version, and the example's Spring Boot parent and Spring Cloud BOM;
 * docs/deployment.md names every artifact the starter brings; every install command names modules
 * that exist.
 */
class StarterDocsTest {

    private static final Pattern XML_BLOCK = Pattern.compile("(?s)```xml\\n(.*?)```");
    private static final Pattern INSTALL = Pattern.compile("-pl ([a-z/,-]+) -am install");

    private final Path root = PackageGraphTest.Repository.root();

    @Test
    void theReadmesPomFragmentIsTheExamplesBuildWithTheStarter() throws Exception {
        Element fragment = readmeFragment();
        Element example = pom(root.resolve("examples/shop-gateway/pom.xml"));
        Element parentPom = pom(root.resolve("pom.xml"));
        Element starter = pom(root.resolve("starter/pom.xml"));

        Element parent = child(fragment, "parent");
        assertThat(coordinates(parent)).as("the fragment's parent")
                .isEqualTo(coordinates(child(example, "parent")))
                .isEqualTo(coordinates(child(parentPom, "parent")))
                .isEqualTo("org.springframework.boot:spring-boot-starter-parent:4.0.7");
        assertThat(text(child(fragment, "properties"), "java.version")).isEqualTo("17");

        Element bom = dependency(child(fragment, "dependencyManagement"), "spring-cloud-dependencies");
        assertThat(text(bom, "version")).as("the Spring Cloud BOM's version in the README")
                .isEqualTo(text(child(parentPom, "properties"), "spring-cloud.version"))
                .isEqualTo(text(child(example, "properties"), "spring-cloud.version"));
        assertThat(text(bom, "type") + " " + text(bom, "scope")).isEqualTo("pom import");

        String starterArtifact = text(starter, "artifactId");
        assertThat(starterArtifact).as("Spring Boot's naming of a third-party starter").isEqualTo("queuegate-spring-boot-starter");
        Element pasted = dependency(fragment, starterArtifact);
        assertThat(text(pasted, "groupId")).isEqualTo(text(parentPom, "groupId"));
        assertThat(text(pasted, "version")).as("the starter's version in the README").isEqualTo(text(parentPom, "version"));

        Element used = dependency(example, starterArtifact);
        assertThat(text(used, "version")).isEqualTo("${queuegate.version}");
        assertThat(text(child(example, "properties"), "queuegate.version")).isEqualTo(text(parentPom, "version"));
        assertThat(artifacts(example)).as("the example takes QueueGate and Spring Cloud Gateway through the starter only")
                .doesNotContain("queuegate-gateway", "spring-cloud-starter-gateway-server-webflux");
    }

    @Test
    void theDeploymentDocsNameEveryArtifactTheStarterBrings() throws Exception {
        String deployment = Files.readString(root.resolve("docs/deployment.md"));
        String section = deployment.substring(deployment.indexOf("## In a shop's own gateway"));
        Element starter = pom(root.resolve("starter/pom.xml"));

        List<String> brought = new ArrayList<>();
        forEachDependency(starter, dependency -> brought.add(
                text(dependency, "groupId").replace("${project.groupId}", "io.queuegate") + ":" + text(dependency, "artifactId")));
        assertThat(brought).contains("io.queuegate:queuegate-gateway",
                "org.springframework.cloud:spring-cloud-starter-gateway-server-webflux");
        for (String artifact : brought) {
            assertThat(section).as("docs/deployment.md's shop's own gateway names %s", artifact).contains("`" + artifact + "`");
        }
        assertThat(section).contains("`io.queuegate:queuegate-spring-boot-starter`", "`2025.1.4`", "`4.0.7`");
    }

    @Test
    void everyInstallCommandNamesModulesOfTheBuildAndTheReadmesInstallsTheStarter() throws Exception {
        List<String> modules = new ArrayList<>();
        NodeList declared = pom(root.resolve("pom.xml")).getElementsByTagName("module");
        for (int i = 0; i < declared.getLength(); i++) {
            modules.add(declared.item(i).getTextContent().strip());
        }
        List<String> readmeInstalls = installed(Files.readString(root.resolve("README.md")));
        assertThat(readmeInstalls).as("the README's install command").containsExactly("starter");

        for (String file : List.of("README.md", "docs/deployment.md", "examples/shop-gateway/README.md",
                "examples/shop-gateway/pom.xml")) {
            List<String> named = installed(Files.readString(root.resolve(file)));
            assertThat(named).as("%s's install commands", file).isNotEmpty();
            assertThat(modules).as("modules named by %s's install commands", file).containsAll(named);
        }
    }

    private static List<String> installed(String text) {
        List<String> modules = new ArrayList<>();
        Matcher install = INSTALL.matcher(text);
        while (install.find()) {
            modules.addAll(List.of(install.group(1).split(",")));
        }
        return modules;
    }

    /** The README's {@code pom.xml} fragment of its section "In your own gateway", read as one POM. */
    private Element readmeFragment() throws Exception {
        String readme = Files.readString(root.resolve("README.md"));
        String section = readme.substring(readme.indexOf("## In your own gateway"));
        section = section.substring(0, section.indexOf("\n## ", 1));
        Matcher block = XML_BLOCK.matcher(section);
        assertThat(block.find()).as("an xml block in the README's 'In your own gateway'").isTrue();
        return DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new InputSource(new StringReader("<project>" + block.group(1) + "</project>")))
                .getDocumentElement();
    }

    private static Element pom(Path file) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile()).getDocumentElement();
    }

    private static String coordinates(Element element) {
        return text(element, "groupId") + ":" + text(element, "artifactId") + ":" + text(element, "version");
    }

    /** The dependency of that artifact among the element's own {@code dependencies}. */
    private static Element dependency(Element owner, String artifactId) {
        List<Element> found = new ArrayList<>();
        forEachDependency(owner, dependency -> {
            if (artifactId.equals(text(dependency, "artifactId"))) {
                found.add(dependency);
            }
        });
        assertThat(found).as("a dependency on %s", artifactId).hasSize(1);
        return found.get(0);
    }

    private static List<String> artifacts(Element owner) {
        List<String> artifacts = new ArrayList<>();
        forEachDependency(owner, dependency -> artifacts.add(text(dependency, "artifactId")));
        return artifacts;
    }

    private static void forEachDependency(Element owner, Consumer<Element> action) {
        Element dependencies = child(owner, "dependencies");
        for (Node node = dependencies.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals("dependency")) {
                action.accept(element);
            }
        }
    }

    private static Element child(Element parent, String name) {
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                return element;
            }
        }
        throw new AssertionError("no <" + name + "> in <" + parent.getTagName() + ">");
    }

    private static String text(Element parent, String name) {
        return child(parent, name).getTextContent().strip();
    }
}
