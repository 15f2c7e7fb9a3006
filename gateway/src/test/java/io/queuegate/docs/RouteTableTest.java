package io.queuegate.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.springframework.boot.convert.DurationStyle;

import io.queuegate.config.RouteField;
import io.queuegate.config.RouteFields;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The route table of {@code docs/configuration.md} names every field of a route's {@code queue}
 * block, in the order of {@link RouteFields}, with the default a route gets when it leaves the
 * field out. The metadata test cannot see these fields (they are bound from route metadata, not
 * from {@code queuegate.*}), and the table once said "none" for a default that was {@code 0}.
 */
class RouteTableTest {

    /** A row: the backticked field, then the default cell. */
    private static final Pattern ROW = Pattern.compile("^\\|\\s*`([a-z-]+)`\\s*\\|([^|]*)\\|");
    private static final Pattern FIRST_CODE = Pattern.compile("`([^`]*)`");

    @Test
    void everyFieldIsDocumentedInOrderWithItsDefault() throws IOException {
        Map<String, String> documented = routeTable();

        assertThat(documented.keySet()).as("the route table's fields, in RouteFields' order")
                .containsExactlyElementsOf(RouteFields.ALL.stream().map(RouteField::name).toList());
        for (RouteField<?> field : RouteFields.ALL) {
            assertThat(matches(documented.get(field.name()), field.defaultValue()))
                    .as("%s: documented default '%s', the code's %s", field.name(), documented.get(field.name()),
                            field.defaultValue())
                    .isTrue();
        }
    }

    /** The documented default cell against the code's value, read as Spring would bind the cell. */
    private static boolean matches(String cell, Object value) {
        Matcher code = FIRST_CODE.matcher(cell);
        if (!code.find()) {
            // An unquoted "none": the field has no value unless set.
            return cell.strip().equals("none") && value == null;
        }
        String token = code.group(1);
        if (value instanceof Duration duration) {
            return DurationStyle.detectAndParse(token).equals(duration);
        }
        if (value instanceof Enum<?> constant) {
            return constant.name().toLowerCase(Locale.ROOT).replace('_', '-').equals(token);
        }
        return String.valueOf(value).equals(token);
    }

    /** The table after the route example: the first whose header is "property | default | meaning". */
    private static Map<String, String> routeTable() throws IOException {
        List<String> lines = Files.readAllLines(PackageGraphTest.Repository.root().resolve("docs/configuration.md"));
        int header = lines.indexOf("| property | default | meaning |");
        assertThat(header).as("the route table's header").isNotNegative();
        Map<String, String> rows = new LinkedHashMap<>();
        for (String line : lines.subList(header + 2, lines.size())) {
            Matcher row = ROW.matcher(line);
            if (!row.find()) {
                break;
            }
            rows.put(row.group(1), row.group(2));
        }
        return rows;
    }

}
