package io.queuegate.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

import io.queuegate.config.QueuePolicy;
import io.queuegate.config.QueueSettings;
import io.queuegate.config.RouteField;
import io.queuegate.config.RouteField.AppliedBy;
import io.queuegate.config.RouteFields;
import io.queuegate.store.ProductRules;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every route field exists in all the places that make it real, and fails here until it does: its
 * line in {@link RouteFields}, its row in {@code docs/configuration.md}'s route table, and its
 * behaviour. A field the scripts obey reaches Redis by its name (a component of
 * {@link ProductRules}, whose {@link ProductRules#wire()} is the one encoder of join and recovery)
 * and some Lua reads it by that name; a field the gateway obeys is read from the policy by the
 * gateway's own code and never goes to Redis.
 */
class RouteFieldWireTest {

    static List<RouteField<?>> fields() {
        return RouteFields.ALL;
    }

    @Test
    void theWireCarriesExactlyTheFieldsTheScriptsObeyByTheirNames() {
        List<String> names = new ArrayList<>();
        List<String> wire = QueuePolicy.from(QueueSettings.EMPTY).rules().wire();
        for (int i = 0; i < wire.size(); i += 2) {
            names.add(wire.get(i));
        }

        assertThat(ProductRules.names()).as("ProductRules' components, as route fields")
                .containsExactlyInAnyOrderElementsOf(RouteFields.SCRIPTS.stream().map(RouteField::name).toList());
        assertThat(names).as("the names on the wire").isEqualTo(ProductRules.names());
    }

    @ParameterizedTest
    @MethodSource("fields")
    void everyFieldHasItsDocLineAndItsBehaviour(RouteField<?> field) throws IOException {
        Path root = PackageGraphTest.Repository.root();
        assertThat(Files.readAllLines(root.resolve("docs/configuration.md")))
                .as("%s: a row of docs/configuration.md's route table", field.name())
                .anyMatch(line -> line.startsWith("| `" + field.name() + "` |"));
        if (field.appliedBy() == AppliedBy.SCRIPTS) {
            assertThat(ProductRules.names()).as("%s reaches the wire", field.name()).contains(field.name());
            assertThat(luaReading(root, "'" + field.name() + "'"))
                    .as("%s: a script reads it by its name, rule(c, '%s')", field.name(), field.name()).isNotEmpty();
        }
        else {
            assertThat(ProductRules.names()).as("%s stays in the gateway", field.name()).doesNotContain(field.name());
            assertThat(javaReading(root, "." + camel(field.name()) + "()"))
                    .as("%s: the gateway reads it from the policy outside config/", field.name()).isNotEmpty();
        }
    }

    /** The scripts that name {@code quoted}, the rules' own file aside (it names the rules to read them). */
    private static List<Path> luaReading(Path root, String quoted) throws IOException {
        try (Stream<Path> files = Files.list(root.resolve("lua"))) {
            return files.filter(file -> file.toString().endsWith(".lua"))
                    .filter(file -> !file.getFileName().toString().equals("rules.lua"))
                    .filter(file -> read(file).contains(quoted)).toList();
        }
    }

    /** The gateway's sources outside {@code config/} (which defines the policy) that call {@code call}. */
    private static List<Path> javaReading(Path root, String call) throws IOException {
        Path main = root.resolve("gateway/src/main/java/io/queuegate");
        try (Stream<Path> files = Files.walk(main)) {
            return files.filter(file -> file.toString().endsWith(".java"))
                    .filter(file -> !file.startsWith(main.resolve("config")))
                    .filter(file -> read(file).contains(call)).toList();
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** {@code max-active} as Java spells the accessor: {@code maxActive}. */
    private static String camel(String name) {
        StringBuilder camel = new StringBuilder();
        boolean upper = false;
        for (char c : name.toCharArray()) {
            if (c == '-') {
                upper = true;
            }
            else {
                camel.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return camel.toString();
    }
}
