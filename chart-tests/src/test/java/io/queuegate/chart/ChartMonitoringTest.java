package io.queuegate.chart;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static io.queuegate.chart.Manifests.at;
import static io.queuegate.chart.Manifests.list;
import static io.queuegate.chart.Manifests.map;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Grafana dashboard and the PrometheusRule the chart ships behind {@code dashboards.enabled}
 * and {@code alerts.enabled}: absent by default, and when on, a dashboard the sidecar finds and a
 * rule whose expressions follow the metrics' semantics. That every metric name they use exists in
 * a real scrape is checked against a running gateway, in gateway-app ({@code MonitoringMetricNamesTest}).
 */
class ChartMonitoringTest {

    private static final String DASHBOARDS = "qg-queuegate-dashboards";
    private static final String RULE = "qg-queuegate";
    private static final List<String> ALERTS =
            List.of("QueueGateRedisFailures", "QueueGateFailOpenPasses", "QueueGateLineStalled", "QueueGateDecisionSlow");
    /** The clause that keeps an alert off products an operator paused, closed or drained on purpose. */
    private static final String SKIP_STOPPED_PRODUCTS = "unless on (namespace, job, product) ("
            + "max by (namespace, job, product) (queuegate_mode{mode=~\"queue-all|closed\"}) == 1 "
            + "or max by (namespace, job, product) (queuegate_draining) == 1)";
    /** Gauges that every instance exports with the value it read from the same Redis. */
    private static final Pattern INSTANCE_GAUGE = Pattern.compile("\\bqueuegate_(waiting|active|mode|draining)\\b");
    /** What may stand right before such a gauge: a max or avg by product. */
    private static final Pattern MAX_OR_AVG_BY_PRODUCT =
            Pattern.compile("\\b(max|avg)\\s+by\\s*\\([^)]*\\bproduct\\b[^)]*\\)\\s*\\(\\s*$");
    /** A selector of a metric that carries the product tag, with its label matchers (group 2). */
    private static final Pattern PRODUCT_METRIC = Pattern.compile("\\b(queuegate_(?:waiting|active|mode|draining"
            + "|joins_total|admissions_total|completions_total|leaves_total|redis_failures_total|failopen_passes_total"
            + "|wait_seconds_(?:bucket|count|sum)))\\b(\\{[^}]*})?");
    private static final JsonMapper JSON = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    private static Helm helm;
    private static Manifests defaults;

    @BeforeAll
    static void renderTheDefaults() {
        helm = Helm.find();
        defaults = render();
    }

    private static Manifests render(String... more) {
        return helm.template(withMinimalValues(more));
    }

    private static String[] withMinimalValues(String... more) {
        List<String> args = new ArrayList<>(List.of(
                "--set", "queuegate.token.secret=ci-only-token-secret-not-for-production-0123456789",
                "--set", "redis.host=redis"));
        args.addAll(Arrays.asList(more));
        return args.toArray(String[]::new);
    }

    @Test
    void withTheFlagsOffNeitherTheDashboardNorTheRulesRender() {
        assertThat(defaults.ofKind("PrometheusRule")).isEmpty();
        assertThat(defaults.find("ConfigMap", DASHBOARDS)).isEmpty();
        assertThat(defaults.objects())
                .noneSatisfy(object -> assertThat(labels(object)).containsKey("grafana_dashboard"));
        assertThat(render("--set", "dashboards.enabled=false", "--set", "alerts.enabled=false").names())
                .isEqualTo(defaults.names());
    }

    @Test
    void theDashboardConfigMapCarriesTheChartsDashboardFileForGrafanasSidecar() throws IOException {
        Manifests manifests = render("--set", "dashboards.enabled=true");
        Map<String, Object> configMap = manifests.get("ConfigMap", DASHBOARDS);
        String shipped = Files.readString(helm.chart("queuegate").resolve("dashboards/queuegate.json"));

        assertThat(labels(configMap)).containsEntry("grafana_dashboard", "1")
                .containsEntry("app.kubernetes.io/instance", "qg");
        assertThat(at(configMap, "metadata.namespace")).isEqualTo("shop");
        assertThat(map(configMap, "data")).containsOnlyKeys("queuegate.json");
        String json = (String) at(configMap, "data.queuegate\\.json");
        assertThat(json).isEqualTo(shipped.stripTrailing());

        JsonNode dashboard = JSON.readTree(json);
        assertThat(dashboard.path("uid").asString()).isEqualTo("queuegate");
        assertThat(dashboard.path("title").asString()).isEqualTo("QueueGate");
        assertThat(exprs(dashboard)).hasSizeGreaterThanOrEqualTo(15);
        // the other objects are those of the defaults: the flag adds the ConfigMap and nothing else
        assertThat(manifests.names()).containsExactlyInAnyOrderElementsOf(
                concat(defaults.names(), "ConfigMap/" + DASHBOARDS));
    }

    @Test
    void theSidecarsLabelTheNamespaceAndAnnotationsAreValues() {
        Manifests manifests = render("--set", "dashboards.enabled=true", "--set", "dashboards.label=my_dashboards",
                "--set", "dashboards.labelValue=queuegate", "--set", "dashboards.namespace=monitoring",
                "--set", "dashboards.annotations.grafana_folder=Shop");
        Map<String, Object> configMap = manifests.get("ConfigMap", DASHBOARDS);

        assertThat(labels(configMap)).containsEntry("my_dashboards", "queuegate").doesNotContainKey("grafana_dashboard");
        assertThat(at(configMap, "metadata.namespace")).isEqualTo("monitoring");
        assertThat(map(configMap, "metadata.annotations")).containsEntry("grafana_folder", "Shop");
    }

    @Test
    void theDashboardHasAProductVariableThatEveryPerProductQueryFilters() throws IOException {
        JsonNode dashboard = JSON.readTree(Files.readString(helm.chart("queuegate").resolve("dashboards/queuegate.json")));
        JsonNode product = null;
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if ("product".equals(variable.path("name").asString())) {
                product = variable;
            }
        }

        assertThat(product).as("a template variable named product").isNotNull();
        assertThat(product.path("type").asString()).isEqualTo("query");
        assertThat(product.path("query").path("query").asString()).isEqualTo("label_values(queuegate_waiting, product)");
        assertThat(product.path("multi").asBoolean()).isTrue();
        assertThat(product.path("includeAll").asBoolean()).isTrue();
        List<String> selectors = new ArrayList<>();
        for (String expr : exprs(dashboard)) {
            Matcher metric = PRODUCT_METRIC.matcher(expr);
            while (metric.find()) {
                selectors.add(metric.group());
                assertThat(metric.group(2)).as("%s in %s", metric.group(1), expr).contains("product=~\"$product\"");
            }
        }
        assertThat(selectors).hasSizeGreaterThanOrEqualTo(15);
    }

    @Test
    void gaugesThatEveryInstanceExportsAreCombinedWithMaxOrAvgByProductNeverSummed() throws IOException {
        JsonNode dashboard = JSON.readTree(Files.readString(helm.chart("queuegate").resolve("dashboards/queuegate.json")));
        List<String> exprs = new ArrayList<>(exprs(dashboard));
        exprs.addAll(ruleExprs(render("--set", "alerts.enabled=true")).values());
        int gauges = 0;

        for (String expr : exprs) {
            Matcher gauge = INSTANCE_GAUGE.matcher(expr);
            while (gauge.find()) {
                gauges++;
                assertThat(expr.substring(0, gauge.start()))
                        .as("%s must be inside max/avg by (product): %s", gauge.group(), expr)
                        .containsPattern(MAX_OR_AVG_BY_PRODUCT);
            }
        }
        assertThat(gauges).isGreaterThanOrEqualTo(10);
        // the check itself tells the two apart
        assertThat("sum(max by (namespace, job, product) (").containsPattern(MAX_OR_AVG_BY_PRODUCT);
        assertThat("max by (product) (sum by (product) (").doesNotContainPattern(MAX_OR_AVG_BY_PRODUCT);
        assertThat("max by (route) (").doesNotContainPattern(MAX_OR_AVG_BY_PRODUCT);
    }

    @Test
    void thePrometheusRuleRendersAsYamlWithTheDefaultThresholds() {
        Helm.Result result = helm.templateResult(withMinimalValues("--set", "alerts.enabled=true"));
        assertThat(result.exitCode()).as(result.toString()).isZero();
        Manifests manifests = Manifests.parse(result.out());
        Map<String, Object> rule = manifests.get("PrometheusRule", RULE);

        assertThat(at(rule, "apiVersion")).isEqualTo("monitoring.coreos.com/v1");
        assertThat(at(rule, "metadata.namespace")).isEqualTo("shop");
        assertThat(list(rule, "spec.groups")).singleElement().satisfies(group -> assertThat(at(group, "name")).isEqualTo("queuegate"));
        List<Map<String, Object>> rules = rules(rule);
        assertThat(rules).extracting(r -> r.get("alert")).containsExactlyElementsOf(ALERTS);
        for (Map<String, Object> alert : rules) {
            assertThat(alert).containsOnlyKeys("alert", "expr", "for", "labels", "annotations");
            assertThat(alert.get("expr")).isInstanceOf(String.class);
            assertThat(balanced((String) alert.get("expr"))).as("parentheses of %s", alert.get("expr")).isTrue();
            assertThat(alert.get("for")).asString().matches("[0-9]+[smh]");
            assertThat(map(alert, "labels")).containsKey("severity");
            assertThat(map(alert, "annotations")).containsOnlyKeys("summary", "description");
            // Prometheus' own templates reach Prometheus untouched by Helm
            assertThat(at(alert, "annotations.summary")).asString().containsPattern("\\{\\{ \\$labels\\.(product|route) }}");
        }
        Map<String, String> exprs = ruleExprs(manifests);
        assertThat(exprs.get("QueueGateRedisFailures")).contains("increase(queuegate_redis_failures_total[5m])) > 5");
        assertThat(exprs.get("QueueGateFailOpenPasses")).contains("increase(queuegate_failopen_passes_total[5m])) > 0");
        assertThat(exprs.get("QueueGateLineStalled")).contains("(queuegate_waiting) >= 1")
                .contains("rate(queuegate_admissions_total[10m])) > 0");
        assertThat(exprs.get("QueueGateDecisionSlow")).startsWith("histogram_quantile(0.99, ").endsWith(" > 0.5");
        assertThat(rules).extracting(r -> at(r, "labels.severity")).containsExactly("critical", "warning", "warning", "warning");
        assertThat(manifests.names()).containsExactlyInAnyOrderElementsOf(concat(defaults.names(), "PrometheusRule/" + RULE));
    }

    @Test
    void everyPerProductAlertSkipsProductsThatArePausedClosedOrDraining() {
        Map<String, String> exprs = ruleExprs(render("--set", "alerts.enabled=true"));

        for (String alert : List.of("QueueGateRedisFailures", "QueueGateFailOpenPasses", "QueueGateLineStalled")) {
            assertThat(normalized(exprs.get(alert))).as(alert).endsWith(SKIP_STOPPED_PRODUCTS);
        }
        // decisions carry no product: that alert is per route
        assertThat(exprs.get("QueueGateDecisionSlow")).contains("by (namespace, job, route, le)").doesNotContain("product");
    }

    @Test
    void thresholdsWindowsSeveritiesAndLabelsAreValues() {
        Manifests manifests = render("--set", "alerts.enabled=true", "--set", "alerts.namespace=monitoring",
                "--set", "alerts.labels.release=kube-prometheus-stack", "--set", "alerts.extraLabels.team=shop",
                "--set", "alerts.redisFailures.threshold=10", "--set", "alerts.redisFailures.window=1m",
                "--set", "alerts.failOpenPasses.for=30s", "--set", "alerts.stalledLine.minWaiting=50",
                "--set", "alerts.stalledLine.window=30m", "--set", "alerts.decisionLatency.thresholdSeconds=0.25",
                "--set", "alerts.decisionLatency.severity=critical");
        Map<String, Object> rule = manifests.get("PrometheusRule", RULE);
        Map<String, String> exprs = ruleExprs(manifests);
        Map<String, Map<String, Object>> byName = new java.util.LinkedHashMap<>();
        rules(rule).forEach(r -> byName.put((String) r.get("alert"), r));

        assertThat(at(rule, "metadata.namespace")).isEqualTo("monitoring");
        assertThat(labels(rule)).containsEntry("release", "kube-prometheus-stack");
        assertThat(exprs.get("QueueGateRedisFailures")).contains("increase(queuegate_redis_failures_total[1m])) > 10");
        assertThat(byName.get("QueueGateFailOpenPasses").get("for")).isEqualTo("30s");
        assertThat(exprs.get("QueueGateLineStalled")).contains("(queuegate_waiting) >= 50")
                .contains("rate(queuegate_admissions_total[30m])) > 0");
        assertThat(exprs.get("QueueGateDecisionSlow")).endsWith(" > 0.25");
        assertThat(at(byName.get("QueueGateDecisionSlow"), "labels.severity")).isEqualTo("critical");
        assertThat(byName.values()).allSatisfy(r -> assertThat(at(r, "labels.team")).isEqualTo("shop"));
    }

    @Test
    void alertsTurnOffOneByOneButNotAllWhileTheRuleIsOn() {
        Manifests three = render("--set", "alerts.enabled=true", "--set", "alerts.stalledLine.enabled=false");
        assertThat(rules(three.get("PrometheusRule", RULE))).extracting(r -> r.get("alert"))
                .containsExactly("QueueGateRedisFailures", "QueueGateFailOpenPasses", "QueueGateDecisionSlow");

        Helm.Result none = helm.templateResult(withMinimalValues("--set", "alerts.enabled=true",
                "--set", "alerts.redisFailures.enabled=false", "--set", "alerts.failOpenPasses.enabled=false",
                "--set", "alerts.stalledLine.enabled=false", "--set", "alerts.decisionLatency.enabled=false"));
        assertThat(none.exitCode()).as(none.toString()).isNotZero();
        assertThat(none.err()).contains("every alert under alerts.* is turned off");
    }

    @Test
    void bothTogetherRenderOneMultiDocumentYamlThatParses() {
        Helm.Result result = helm.templateResult(withMinimalValues("--set", "alerts.enabled=true", "--set", "dashboards.enabled=true"));

        assertThat(result.exitCode()).as(result.toString()).isZero();
        List<Object> documents = new ArrayList<>();
        new Yaml().loadAll(result.out()).forEach(documents::add);
        assertThat(documents).hasSize(defaults.objects().size() + 2);
    }

    // --- helpers

    @SuppressWarnings("unchecked")
    private static Map<String, Object> labels(Map<String, Object> object) {
        Object labels = at(object, "metadata.labels");
        return labels == null ? Map.of() : (Map<String, Object>) labels;
    }

    private static List<Map<String, Object>> rules(Map<String, Object> rule) {
        return list(list(rule, "spec.groups").get(0), "rules").stream().map(Manifests::asMap).toList();
    }

    private static Map<String, String> ruleExprs(Manifests manifests) {
        Map<String, String> exprs = new java.util.LinkedHashMap<>();
        rules(manifests.get("PrometheusRule", RULE)).forEach(r -> exprs.put((String) r.get("alert"), (String) r.get("expr")));
        return exprs;
    }

    /** Every query expression of the dashboard's panels, nested rows included. */
    private static List<String> exprs(JsonNode dashboard) {
        List<String> exprs = new ArrayList<>();
        collectExprs(dashboard.path("panels"), exprs);
        return exprs;
    }

    private static void collectExprs(JsonNode node, List<String> exprs) {
        if (node.isObject()) {
            JsonNode expr = node.get("expr");
            if (expr != null && expr.isString()) {
                exprs.add(expr.asString());
            }
        }
        node.forEach(child -> collectExprs(child, exprs));
    }

    private static String normalized(String expr) {
        return expr.replaceAll("\\s+", " ").replace("( ", "(").replace(" )", ")").trim();
    }

    private static boolean balanced(String expr) {
        int depth = 0;
        for (char c : expr.toCharArray()) {
            depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            if (depth < 0) {
                return false;
            }
        }
        return depth == 0;
    }

    private static List<String> concat(List<String> names, String more) {
        List<String> all = new ArrayList<>(names);
        all.add(more);
        return all;
    }
}
