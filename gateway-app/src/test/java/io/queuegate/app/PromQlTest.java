package io.queuegate.app;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The metric-name extraction {@link MonitoringMetricNamesTest} relies on. */
class PromQlTest {

    @Test
    void findsTheMetricsAndNotTheFunctionsLabelsKeywordsStringsDurationsOrNumbers() {
        String expr = """
                histogram_quantile(0.99, sum by (namespace, job, route, le) (
                  rate(queuegate_decision_seconds_bucket{outcome!~"unavailable|unchecked", route=~"$route"}[$__rate_interval])
                )) > 0.5
                unless on (product) (max by (product) (queuegate_mode{mode=~"queue-all|closed"}) == bool 1
                or max without (instance) (queuegate_draining offset 5m) == 1)
                and ignoring (le) group_left (trigger) sum(rate(queuegate_admissions_total[5m:1m])) > 1e3
                or vector(0) or count(up_like_total)""";

        assertThat(PromQl.metricNames(expr)).containsExactly("queuegate_admissions_total",
                "queuegate_decision_seconds_bucket", "queuegate_draining", "queuegate_mode", "up_like_total");
    }

    @Test
    void aSelectorWithoutMatchersAndAMisspeltNameAreStillNames() {
        assertThat(PromQl.metricNames("max by (product) (queuegate_waiting) >= 1")).containsExactly("queuegate_waiting");
        assertThat(PromQl.metricNames("sum(rate(queuegate_joins_totl{product=~\"$product\"}[5m]))"))
                .containsExactly("queuegate_joins_totl");
        assertThat(PromQl.metricNames("queuegate_wait_seconds_sum / queuegate_wait_seconds_count"))
                .containsExactly("queuegate_wait_seconds_count", "queuegate_wait_seconds_sum");
    }

    @Test
    void grafanasLabelValuesQueryNamesOnlyItsSelector() {
        assertThat(PromQl.metricNames("label_values(queuegate_waiting, product)")).containsExactly("queuegate_waiting");
        assertThat(PromQl.metricNames("label_values(queuegate_mode{mode=\"queue\"}, product)")).containsExactly("queuegate_mode");
        assertThat(PromQl.metricNames("label_values(product)")).isEmpty();
    }

    @Test
    void aScrapeNamesItsSamplesNotItsCommentsOrLabels() {
        String scrape = """
                # HELP queuegate_joins_total Users who took a new place in line
                # TYPE queuegate_joins_total counter
                queuegate_joins_total{product="42",route="products"} 3.0
                queuegate_decision_seconds_bucket{outcome="active",route="products",le="0.001"} 0
                queuegate_waiting{product="42"} 1.0
                jvm_threads_live_threads 30.0
                """;

        assertThat(PromQl.sampleNames(scrape)).containsExactly("jvm_threads_live_threads",
                "queuegate_decision_seconds_bucket", "queuegate_joins_total", "queuegate_waiting");
    }
}
