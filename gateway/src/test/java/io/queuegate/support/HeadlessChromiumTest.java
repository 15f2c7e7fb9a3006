package io.queuegate.support;

import java.io.File;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The page tests' rule: a class that needs Chromium is skipped only where Chromium or its driver
 * is missing, and the skip says what to install.
 */
class HeadlessChromiumTest {

    private static final File MISSING = new File("/nonexistent/queuegate/chromium");
    private static final File PRESENT = new File(System.getProperty("java.home"), "bin/java");

    @Test
    void skipsSayingWhatToInstallWhereChromiumOrItsDriverIsMissing() {
        for (HeadlessChromium chromium : new HeadlessChromium[] { new HeadlessChromium(MISSING, PRESENT, 420, 860),
                new HeadlessChromium(PRESENT, MISSING, 420, 860) }) {
            ConditionEvaluationResult result = chromium.evaluateExecutionCondition(null);
            assertThat(result.isDisabled()).isTrue();
            assertThat(result.getReason()).hasValueSatisfying(reason -> assertThat(reason)
                    .contains("apt-get install chromium chromium-driver"));
        }
    }

    @Test
    void runsWhereBothAreThere() {
        assertThat(new HeadlessChromium(PRESENT, PRESENT, 420, 860).evaluateExecutionCondition(null).isDisabled())
                .isFalse();
    }

    @Test
    void aTestThatOpensNoBrowserHasNoneToClose() {
        HeadlessChromium chromium = new HeadlessChromium(MISSING, MISSING, 420, 860);
        chromium.close();
        chromium.afterEach(null);
        assertThat(org.assertj.core.api.Assertions.catchThrowable(chromium::driver))
                .isInstanceOf(IllegalStateException.class);
    }
}
