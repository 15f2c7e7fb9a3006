package io.queuegate.app;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.queuegate.support.Backend;
import io.queuegate.support.RedisProcess;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every metric the chart's Grafana dashboard ({@code helm/queuegate/dashboards/queuegate.json})
 * and alerting rules ({@code helm/queuegate/templates/prometheusrule.yaml}) query exists in a real
 * {@code /actuator/prometheus} scrape of the runnable gateway. Counters and timers register with
 * their first event, so the scrape is taken after traffic that makes every one of them happen:
 * joins, a wait, an admission after it, a completion, a leave, a rejection, and a Redis failure on a
 * route that fails open. A renamed meter, or a typo in a query, fails this test.
 */
class MonitoringMetricNamesTest {

    private static final Path CHART = chart();
    /** An {@code expr:} key of the rule template, with its value or block indicator (group 2). */
    private static final Pattern EXPR = Pattern.compile("^(\\s*)expr:\\s*(.*)$");
    private static final Pattern TEMPLATE_ACTION = Pattern.compile("\\{\\{.*?}}");

    private static RedisProcess redis;
    private static WireMockServer shop;
    private static RunnableGateway gateway;
    private static Set<String> scraped;

    @BeforeAll
    static void scrapeAfterTraffic() {
        redis = RedisProcess.start();
        shop = Backend.start();
        Map<String, Object> properties = RunnableGateway.properties(redis, shop.baseUrl());
        // the test names its shoppers with X-User-Id from loopback
        properties.put("queuegate.identity.source", "header");
        properties.put("queuegate.trusted-proxies[0]", "127.0.0.1/32");
        properties.put("queuegate.trusted-proxies[1]", "::1/128");
        properties.put("queuegate.metrics.refresh-interval", "100ms");
        properties.put("queuegate.redis.timeout", "300ms");
        properties.put("queuegate.products.unchecked.on-redis-failure", "open");
        gateway = RunnableGateway.start(properties);

        String alice = token(expect(200, shopper("GET", "/api/products/42", "alice")));
        String bob = token(expect(429, shopper("GET", "/api/products/42", "bob")));
        String carol = token(expect(429, shopper("GET", "/api/products/42", "carol")));
        expect(200, shopper("DELETE", "/queue/42", "carol", "Queue-Token", carol));
        expect(201, shopper("POST", "/api/products/42/orders", "alice", "Queue-Token", alice));
        expect(200, shopper("GET", "/api/products/42", "bob", "Queue-Token", bob));
        expect(429, shopper("GET", "/api/products/42", "dave"));
        expect(401, shopper("GET", "/api/products/42", "erin", "Queue-Token", "not-a-token"));
        redis.pause();
        try {
            expect(200, shopper("GET", "/api/products/unchecked", "frank"));
        }
        finally {
            redis.resume();
        }

        // the gauges are read from Redis in the background
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> prometheus().contains("queuegate_waiting{product=\"42\"} 1"));
        scraped = PromQl.sampleNames(prometheus());
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
        if (shop != null) {
            shop.stop();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void everyMetricTheDashboardQueriesIsScraped() throws IOException {
        Set<String> used = new TreeSet<>();
        List<String> queries = dashboardQueries(JsonMapper.builder().build()
                .readTree(Files.readString(CHART.resolve("dashboards/queuegate.json"))));
        queries.forEach(query -> used.addAll(PromQl.metricNames(query)));

        assertThat(missing(used)).as("metrics the dashboard queries but no scrape has; the scrape's: %s", queuegate())
                .isEmpty();
        assertThat(queries).hasSizeGreaterThanOrEqualTo(15);
        // what the dashboard is for: lines, sessions, admissions, waits, decisions and failures
        assertThat(used).contains("queuegate_waiting", "queuegate_active", "queuegate_admissions_total",
                "queuegate_wait_seconds_bucket", "queuegate_decision_seconds_bucket", "queuegate_redis_failures_total",
                "queuegate_failopen_passes_total", "queuegate_rejections_total");
    }

    @Test
    void everyMetricTheAlertingRulesQueryIsScraped() throws IOException {
        String template = Files.readString(CHART.resolve("templates/prometheusrule.yaml"));
        List<String> exprs = ruleExprs(template);
        Set<String> used = new TreeSet<>();
        exprs.forEach(expr -> used.addAll(PromQl.metricNames(expr)));

        assertThat(missing(used)).as("metrics the rules query but no scrape has; the scrape's: %s", queuegate())
                .isEmpty();
        long alerts = template.lines().filter(line -> line.strip().startsWith("- alert:")).count();
        assertThat(exprs).as("an expr for every alert").hasSize((int) alerts).hasSizeGreaterThanOrEqualTo(4);
        assertThat(used).contains("queuegate_redis_failures_total", "queuegate_failopen_passes_total", "queuegate_waiting",
                "queuegate_admissions_total", "queuegate_decision_seconds_bucket", "queuegate_mode", "queuegate_draining");
    }

    private static Set<String> missing(Set<String> used) {
        Set<String> missing = new TreeSet<>(used);
        missing.removeAll(scraped);
        return missing;
    }

    private static Set<String> queuegate() {
        Set<String> ours = new TreeSet<>();
        scraped.stream().filter(name -> name.startsWith("queuegate_")).forEach(ours::add);
        return ours;
    }

    /** Every panel's {@code expr}, and the queries of the dashboard's query variables. */
    private static List<String> dashboardQueries(JsonNode dashboard) {
        List<String> queries = new ArrayList<>();
        collectExprs(dashboard, queries);
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if ("query".equals(variable.path("type").asString())) {
                JsonNode query = variable.path("query");
                queries.add(query.isObject() ? query.path("query").asString() : query.asString());
                if (variable.hasNonNull("definition")) {
                    queries.add(variable.path("definition").asString());
                }
            }
        }
        return queries;
    }

    private static void collectExprs(JsonNode node, List<String> exprs) {
        if (node.isObject() && node.path("expr").isString()) {
            exprs.add(node.path("expr").asString());
        }
        node.forEach(child -> collectExprs(child, exprs));
    }

    /**
     * The {@code expr} values of the rule template, each as Prometheus will get it apart from the
     * template's actions ({@code {{ .window }}}, {@code {{ .threshold }}}), which only put in
     * durations and numbers and are replaced by {@code 1} here.
     */
    static List<String> ruleExprs(String template) {
        List<String> exprs = new ArrayList<>();
        List<String> lines = template.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            Matcher expr = EXPR.matcher(lines.get(i));
            if (!expr.matches()) {
                continue;
            }
            int indent = expr.group(1).length();
            String value = expr.group(2).strip();
            StringBuilder text = new StringBuilder();
            if (value.matches("[|>][-+]?")) {
                while (i + 1 < lines.size() && (lines.get(i + 1).isBlank() || indentOf(lines.get(i + 1)) > indent)) {
                    text.append(lines.get(++i).strip()).append('\n');
                }
            }
            else {
                text.append(value.replaceAll("^[\"']|[\"']$", ""));
            }
            exprs.add(TEMPLATE_ACTION.matcher(text).replaceAll("1"));
        }
        return exprs;
    }

    private static int indentOf(String line) {
        return line.length() - line.stripLeading().length();
    }

    private static HttpResponse<String> shopper(String method, String path, String user, String... headers) {
        String[] all = new String[headers.length + 2];
        all[0] = "X-User-Id";
        all[1] = user;
        System.arraycopy(headers, 0, all, 2, headers.length);
        return gateway.shopper(method, path, all);
    }

    private static HttpResponse<String> expect(int status, HttpResponse<String> response) {
        assertThat(response.statusCode()).as("%s %s", response.request().uri(), response.body()).isEqualTo(status);
        return response;
    }

    private static String token(HttpResponse<String> response) {
        return response.headers().firstValue("Queue-Token").orElseThrow(() -> new AssertionError("no Queue-Token"));
    }

    private static String prometheus() {
        return expect(200, gateway.management("GET", "/actuator/prometheus", "Accept", "text/plain")).body();
    }

    /** The chart directory of this repository, found above the working directory. */
    private static Path chart() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("helm/queuegate/Chart.yaml"))) {
                return dir.resolve("helm/queuegate");
            }
        }
        throw new IllegalStateException("no helm/queuegate/Chart.yaml above " + Path.of("").toAbsolutePath());
    }
}
