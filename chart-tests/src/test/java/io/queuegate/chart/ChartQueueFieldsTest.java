package io.queuegate.chart;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.queuegate.config.RouteField;
import io.queuegate.config.RouteFields;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.json.JsonMapper;

import static io.queuegate.chart.Manifests.list;
import static io.queuegate.chart.Manifests.map;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * The chart takes every field of a route's {@code queue} block, on a route and in a per-product
 * override, and hands each to the gateway as given: the fields are the gateway's
 * {@link RouteFields}, and the schema of a queue block is made from them.
 */
class ChartQueueFieldsTest {

    private static final Path REPOSITORY = Repository.root();

    /** The fields of a queue block, in their order, as the YAML spells them. */
    private static final List<String> FIELDS = RouteFields.ALL.stream().map(RouteField::name).toList();

    private static Helm helm;

    @BeforeAll
    static void findHelm() {
        helm = Helm.find();
    }

    /**
     * The chart's definition of a queue block is the one {@link QueueSettingsSchema} makes from the
     * gateway's {@link RouteFields}: type, values, bounds and description. It writes that definition
     * to {@code target/chart-queue-settings.json}, to paste into values.schema.json.
     */
    @Test
    void theSchemaOfAQueueBlockIsTheOneTheRouteFieldsMake() throws IOException {
        JsonMapper json = JsonMapper.builder().build();
        Map<String, Object> schema = Manifests.asMap(json.readValue(
                Files.readString(REPOSITORY.resolve("helm/queuegate/values.schema.json")), Map.class));
        // Through JSON and back, so that numbers compare as the schema file's do.
        Map<String, Object> expected = Manifests.asMap(json.readValue(
                json.writeValueAsString(QueueSettingsSchema.definition()), Map.class));
        Path target = Path.of("target");
        Files.createDirectories(target);
        Files.writeString(target.resolve("chart-queue-settings.json"),
                json.writerWithDefaultPrettyPrinter().writeValueAsString(expected));

        assertThat(map(schema, "definitions.queueSettings"))
                .as("values.schema.json's definitions.queueSettings; the expected one is in target/chart-queue-settings.json")
                .isEqualTo(expected);
    }

    @Test
    void theSchemaDeclaresEachFieldOnceForRoutesAndProductsAlike() throws IOException {
        Map<String, Object> schema = Manifests.asMap(JsonMapper.builder().build()
                .readValue(Files.readString(REPOSITORY.resolve("helm/queuegate/values.schema.json")), Map.class));
        Map<String, Object> settings = map(schema, "definitions.queueSettings");

        assertThat(map(settings, "properties").keySet()).containsExactlyElementsOf(FIELDS);
        assertThat(settings).containsEntry("additionalProperties", false);
        assertThat(map(schema, "properties.routes.items.properties.metadata.properties.queue"))
                .isEqualTo(Map.of("$ref", "#/definitions/queueSettings"));
        assertThat(map(schema, "properties.products.additionalProperties"))
                .isEqualTo(Map.of("$ref", "#/definitions/queueSettings"));
        map(settings, "properties").forEach((field, definition) -> assertThat(Manifests.asMap(definition))
                .as("the schema of %s", field).containsKey("description")
                .extractingByKey("description").asString().contains("Default"));
    }

    @Test
    void everyFieldOfARouteAndOfAProductOverrideReachesTheGatewayWithItsValue() {
        Manifests manifests = helm.template("-f",
                REPOSITORY.resolve("chart-tests/src/test/resources/values/every-queue-field-values.yaml").toString());
        Map<String, Object> config = manifests.applicationConfig();

        Map<String, Object> route = map(list(config, "spring.cloud.gateway.server.webflux.routes").get(0), "metadata.queue");
        assertThat(route.keySet()).containsExactlyInAnyOrderElementsOf(FIELDS);
        assertThat(route).isEqualTo(ordered(
                "max-active", 25,
                "session-ttl", "15m",
                "promotion", "stream",
                "complete-on", "POST /api/drops/{sku}/orders",
                "on-redis-failure", "open",
                "product-id-variable", "sku",
                "product-id-pattern", "[A-Z]{3}-[0-9]{4}",
                "opens-at", "2026-12-24T10:00:00Z",
                "closes-at", "2026-12-24T21:00:00+09:00",
                "max-admit-per-minute", 600,
                "abandon-after", "90s",
                "arrival-ttl", "PT45S",
                "display-name", "Winter drop",
                "invites", "priority",
                "join-challenge", "pow",
                "pow-difficulty", 400000,
                "bind-token", "network",
                "stock", 500,
                "units-per-shopper", 2,
                "product-id-case", "keep",
                "complete-on-redirect", "sale",
                "websocket", "allow",
                "display-names", Map.of("ko", "겨울 드롭")));

        Map<String, Object> product = map(config, "queuegate.products.SNK-0042");
        assertThat(product.keySet()).containsExactlyInAnyOrderElementsOf(FIELDS);
        assertThat(product).isEqualTo(ordered(
                "max-active", 2,
                "session-ttl", 300000,
                "promotion", "keyspace",
                "complete-on", "post /api/drops/{sku}/checkout",
                "on-redis-failure", "closed",
                "product-id-variable", "sku",
                "product-id-pattern", "SNK-[0-9]{4}",
                "opens-at", "2026-12-25T10:00:00Z",
                "closes-at", "2026-12-25T11:00:00Z",
                "max-admit-per-minute", 0,
                "abandon-after", 0,
                "arrival-ttl", "30s",
                "display-name", "Limited sneakers",
                "invites", "required",
                "join-challenge", "none",
                "pow-difficulty", 50000000,
                "bind-token", "none",
                "stock", 0,
                "units-per-shopper", 3,
                "product-id-case", "fold",
                "complete-on-redirect", "leave",
                "websocket", "refuse",
                "display-names", Map.of("ko", "한정판 운동화", "pt-BR", "Tênis limitado")));
    }

    @Test
    void anUnquotedOffIsTakenAndReachesTheGatewayAsFalseWhichItBindsAsOff(@TempDir Path scratch) throws IOException {
        // YAML 1.1, which Helm reads values with, makes an unquoted `off` the boolean false; the
        // gateway's binder maps false to the enum constant OFF, so the schema takes it too.
        Path values = Files.writeString(scratch.resolve("values.yaml"), """
                products:
                  "7":
                    invites: off
                """);
        Manifests manifests = helm.template("-f",
                REPOSITORY.resolve("chart-tests/src/test/resources/values/every-queue-field-values.yaml").toString(),
                "-f", values.toString());

        assertThat(map(manifests.applicationConfig(), "queuegate.products.7")).isEqualTo(Map.of("invites", false));
    }

    /** Forms the gateway binds that a stricter schema could wrongly refuse. */
    static Stream<Arguments> formsTheGatewayBinds() {
        return Stream.of(
                arguments("session-ttl", "PT10M"),
                arguments("session-ttl", "p1dt2h"),
                arguments("session-ttl", "PT1.5S"),
                arguments("session-ttl", "10M"),
                arguments("session-ttl", 600000),
                arguments("session-ttl", "600000"),
                arguments("arrival-ttl", "1s"),
                arguments("abandon-after", "0"),
                arguments("abandon-after", "3000ms"),
                arguments("opens-at", "2026-12-24T10:00:00+09:00"),
                arguments("opens-at", "Thu, 24 Dec 2026 01:00:00 GMT"),
                arguments("closes-at", 1798070400000L),
                arguments("complete-on", "get /api/products/{productId}/orders"),
                arguments("complete-on", ""),
                arguments("display-name", "  " + "x".repeat(80) + "  "),
                arguments("display-name", "Édition limitée – 限定版"),
                arguments("display-names", Map.of("zh-Hant-TW", "限量版球鞋")),
                arguments("product-id-pattern", "[1-9][0-9]*"),
                arguments("invites", false),
                arguments("join-challenge", "anonymous"),
                arguments("pow-difficulty", 1),
                arguments("max-admit-per-minute", 0));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("formsTheGatewayBinds")
    void theSchemaTakesWhatTheGatewayBinds(String field, Object value) {
        Map<String, Object> queue = Map.of(field, value);
        String json = "[{\"id\":\"r\",\"uri\":\"http://shop\",\"metadata\":{\"queue\":"
                + JsonMapper.builder().build().writeValueAsString(queue) + "}}]";

        Helm.Result result = helm.templateResult("--set", "queuegate.token.secret=ci-only-token-secret-not-for-production-0123456789",
                "--set", "redis.host=redis", "--set-json", "routes=" + json);

        assertThat(result.exitCode()).as(result.toString()).isZero();
        Map<String, Object> rendered = map(list(Manifests.parse(result.out()).applicationConfig(),
                "spring.cloud.gateway.server.webflux.routes").get(0), "metadata.queue");
        assertThat(rendered).containsOnlyKeys(field);
        assertThat(rendered.get(field)).asString().isEqualTo(String.valueOf(value));
    }

    private static Map<String, Object> ordered(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }
}
