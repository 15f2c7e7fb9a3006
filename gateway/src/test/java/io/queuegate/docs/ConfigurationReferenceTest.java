package io.queuegate.docs;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/configuration.md} lists exactly the {@code queuegate.*} properties the code binds,
 * each with the code's default. Spring Cloud Gateway's own documentation named
 * {@code spring.cloud.gateway.filter.request-rate-limiter.*} while its code bound another prefix:
 * a reference that drifts from the code is worse than none, because it is believed. The truth
 * here is the configuration metadata the build generates from the {@code @ConfigurationProperties}
 * classes, plus the runnable gateway's hand-written additional metadata, so a property added,
 * renamed, deprecated or given a new default fails this test until the reference says so.
 */
class ConfigurationReferenceTest {

    /** A table row whose first cell is a backticked {@code queuegate.} property: name, default, the rest. */
    private static final Pattern ROW = Pattern.compile("^\\|\\s*`(queuegate\\.[^`]+)`\\s*\\|([^|]*)\\|(.*)$");
    /**
     * {@code queuegate.products.<id>.*} documents the map-valued {@code queuegate.products}, and
     * {@code queuegate.route-defaults.*} the block-valued {@code queuegate.route-defaults}.
     */
    private static final Pattern MAP_ENTRY = Pattern.compile("(.+?)(?:\\.<[^>]+>)?\\.\\*");
    private static final Pattern BACKTICKED = Pattern.compile("`([^`]*)`");
    private static final Pattern SIMPLE_DURATION = Pattern.compile("(\\d+)(ns|us|ms|s|m|h|d)");
    private static final Map<String, Duration> DURATION_UNITS = Map.of("ns", Duration.ofNanos(1), "us",
            Duration.ofNanos(1_000), "ms", Duration.ofMillis(1), "s", Duration.ofSeconds(1), "m", Duration.ofMinutes(1),
            "h", Duration.ofHours(1), "d", Duration.ofDays(1));
    private static final Pattern DATA_SIZE = Pattern.compile("(\\d+)\\s*(B|KB|MB|GB|TB)", Pattern.CASE_INSENSITIVE);
    private static final String APP_METADATA =
            "gateway-app/src/main/resources/META-INF/additional-spring-configuration-metadata.json";

    private final JsonMapper json = new JsonMapper();

    @Test
    void documentsEveryPropertyWithItsDefaultAndNothingElse() throws IOException {
        Path root = repositoryRoot();
        Map<String, JsonNode> metadata = new LinkedHashMap<>();
        for (String file : List.of("spring-configuration-metadata.json", "additional-spring-configuration-metadata.json")) {
            for (URL url : Collections.list(getClass().getClassLoader().getResources("META-INF/" + file))) {
                read(url, metadata);
            }
        }
        read(root.resolve(APP_METADATA).toUri().toURL(), metadata);
        assertThat(metadata).as("configuration metadata on the test classpath (did the configuration processor run?)")
                .containsKey("queuegate.enabled");

        List<String> problems = new ArrayList<>();
        Map<String, String[]> documented = new LinkedHashMap<>();
        for (String line : Files.readAllLines(root.resolve("docs/configuration.md"))) {
            Matcher row = ROW.matcher(line.trim());
            if (row.matches()) {
                Matcher mapEntry = MAP_ENTRY.matcher(row.group(1));
                String name = mapEntry.matches() ? mapEntry.group(1) : row.group(1);
                if (documented.put(name, new String[] { row.group(2).trim(), row.group(3) }) != null) {
                    problems.add(name + ": documented twice");
                }
            }
        }
        documented.forEach((name, cells) -> {
            JsonNode property = metadata.get(name);
            if (property == null) {
                problems.add(name + ": documented, but the code binds no such property");
                return;
            }
            JsonNode fallback = property.path("defaultValue");
            if (fallback.isMissingNode() || fallback.isNull()) {
                if (!cells[0].replace("`", "").toLowerCase(Locale.ROOT).startsWith("none")) {
                    problems.add(name + ": the code has no default, but the reference says " + cells[0]);
                }
            }
            else if (!normalised(firstValue(cells[0])).equals(normalised(text(fallback)))) {
                problems.add(name + ": the default is " + text(fallback) + " in the code, " + cells[0]
                        + " in the reference");
            }
            boolean deprecated = property.has("deprecation") || property.path("deprecated").asBoolean(false);
            if (deprecated && !cells[1].toLowerCase(Locale.ROOT).contains("deprecated")) {
                problems.add(name + ": deprecated in the code, but the reference does not say so");
            }
        });
        new TreeSet<>(metadata.keySet()).stream().filter(name -> !documented.containsKey(name))
                .forEach(name -> problems.add(name + ": bound by the code, but missing from docs/configuration.md"));
        assertThat(problems).as("docs/configuration.md against the configuration metadata").isEmpty();
    }

    /** Adds the {@code queuegate.*} properties of one metadata file; the first file to name one wins. */
    private void read(URL url, Map<String, JsonNode> into) throws IOException {
        try (InputStream in = url.openStream()) {
            for (JsonNode property : json.readTree(in).path("properties")) {
                String name = property.path("name").asString("");
                if (name.startsWith("queuegate.")) {
                    into.putIfAbsent(name, property);
                }
            }
        }
    }

    /** The first backticked value of a default cell, else the whole cell. */
    private static String firstValue(String cell) {
        Matcher backticked = BACKTICKED.matcher(cell);
        return backticked.find() ? backticked.group(1) : cell;
    }

    /** A metadata default as text; a list default as its items joined by commas. */
    private static String text(JsonNode value) {
        List<String> items = new ArrayList<>();
        (value.isArray() ? value : List.of(value)).forEach(item -> items.add(item.asString("")));
        return String.join(",", items);
    }

    /** {@code 2h} and {@code PT2H} alike, {@code 1MB} and {@code 1048576B} alike; anything else as written. */
    static String normalised(String value) {
        String trimmed = value.trim();
        Matcher duration = SIMPLE_DURATION.matcher(trimmed);
        if (duration.matches()) {
            return DURATION_UNITS.get(duration.group(2)).multipliedBy(Long.parseLong(duration.group(1))).toString();
        }
        if (trimmed.matches("-?PT?\\d.*")) {
            return Duration.parse(trimmed).toString();
        }
        Matcher size = DATA_SIZE.matcher(trimmed);
        if (size.matches()) {
            int power = "BKMGT".indexOf(size.group(2).toUpperCase(Locale.ROOT).charAt(0));
            return (Long.parseLong(size.group(1)) << (10 * power)) + "B";
        }
        return trimmed;
    }

    /** The repository's root: the first directory upwards that holds both {@code lua/} and {@code pom.xml}. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("lua")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no directory with lua/ and pom.xml above " + Path.of("").toAbsolutePath());
    }
}
