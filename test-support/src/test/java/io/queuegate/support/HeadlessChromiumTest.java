package io.queuegate.support;

import java.io.File;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.openqa.selenium.chrome.ChromeDriver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The page tests' rule: a class that needs Chromium is skipped only where Chromium or its driver
 * is missing, and the skip says what to install; the browsers a test opens all close after it.
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
        assertThatThrownBy(chromium::driver).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void everyBrowserATestOpensClosesAfterIt() {
        HeadlessChromium chromium = HeadlessChromium.window(420, 860);
        Assumptions.assumeTrue(chromium.installed(), "needs Debian's chromium and chromium-driver");
        ChromeDriver first = chromium.open();
        ChromeDriver second = chromium.open("ko-KR");
        assertThat(chromium.driver()).as("the helpers act on the browser opened last").isSameAs(second);
        assertThat(first.getSessionId()).isNotEqualTo(second.getSessionId());
        chromium.afterEach(null);
        assertThatThrownBy(first::getTitle).as("closed").isNotNull();
        assertThatThrownBy(second::getTitle).as("closed").isNotNull();
        assertThatThrownBy(chromium::driver).isInstanceOf(IllegalStateException.class);
    }
}
