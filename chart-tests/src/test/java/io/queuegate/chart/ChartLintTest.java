package io.queuegate.chart;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code helm lint --strict} over every value set the repository ships, with the Helm that
 * helm-java embeds.
 */
class ChartLintTest {

    private static Helm helm;

    @BeforeAll
    static void findHelm() {
        helm = Helm.find();
    }

    static Stream<String> shippedValueSets() throws IOException {
        Path chart = Repository.root().resolve("helm/queuegate");
        List<String> files;
        try (Stream<Path> ci = Files.list(chart.resolve("ci"))) {
            files = ci.map(file -> chart.relativize(file).toString()).sorted().toList();
        }
        assertThat(files).hasSizeGreaterThanOrEqualTo(7);
        return Stream.concat(files.stream(), Stream.of("examples/demo-values.yaml"));
    }

    @Test
    void testsRunTheHelmVersionThePomRecords() {
        // chart-tests/pom.xml says which Helm its helm-java embeds; a helm-java bump must update it
        assertThat(helm.version()).isEqualTo("v3.17.4");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shippedValueSets")
    void chartLintsStrictlyWithEveryShippedValueSet(String values) {
        Helm.Result lint = helm.lint("queuegate", values);

        assertThat(lint.exitCode()).as(lint.toString()).isZero();
        assertThat(lint.out()).doesNotContain("[WARNING]").doesNotContain("[ERROR]");
    }

    @Test
    void chartWithoutAnyValuesFailsLintAskingForTheTokenSecret() {
        Helm.Result lint = helm.lint("queuegate");

        assertThat(lint.exitCode()).as(lint.toString()).isNotZero();
        assertThat(lint.out() + lint.err()).contains("queuegate.token.secret:");
    }

    @Test
    void chartWithoutAnyValuesFailsLintNamingTheExistingSecretToo() {
        Helm.Result lint = helm.lint("queuegate");

        assertThat(lint.exitCode()).as(lint.toString()).isNotZero();
        assertThat(lint.out() + lint.err()).contains("queuegate.token.existingSecret");
    }

    @Test
    void demoShopChartLintsStrictly() {
        Helm.Result lint = helm.lint("demo-shop");

        assertThat(lint.exitCode()).as(lint.toString()).isZero();
    }
}
