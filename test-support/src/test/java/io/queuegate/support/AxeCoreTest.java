package io.queuegate.support;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.chrome.ChromeDriver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The accessibility check the page tests rely on finds what it must: a page without a language,
 * an image without a text and grey text on white fail it, each named with its rule, impact and
 * element; a page without them passes. Skipped, saying why, only where Chromium is absent.
 */
class AxeCoreTest {

    @RegisterExtension
    static final HeadlessChromium chromium = HeadlessChromium.window(1280, 800);

    private static final String BROKEN = """
            <!DOCTYPE html><html><head><title>Broken</title></head><body><main>
            <h1>Broken</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
            <p id="faint" style="color:#bbb;background:#fff">Faint text</p></main></body></html>""";

    private static final String FINE = """
            <!DOCTYPE html><html lang="en"><head><title>Fine</title></head><body><main>
            <h1>Fine</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="A dot">
            <p style="color:#1d1d1f;background:#fff">Dark text</p></main></body></html>""";

    @Test
    void namesEachViolationWithItsRuleImpactElementAndMessage() {
        ChromeDriver browser = chromium.open();
        browser.get(page(BROKEN));

        assertThat(AxeCore.violations(browser)).extracting(AxeCore.Violation::rule)
                .containsExactlyInAnyOrder("html-has-lang", "image-alt", "color-contrast");
        assertThat(AxeCore.violations(browser)).filteredOn(v -> v.rule().equals("color-contrast")).singleElement()
                .satisfies(v -> {
                    assertThat(v.impact()).isEqualTo("serious");
                    assertThat(v.target()).contains("#faint");
                    assertThat(v.message()).contains("contrast");
                });
        assertThatThrownBy(() -> AxeCore.assertNoViolations(browser, "the broken page"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("3 accessibility violation(s)")
                .hasMessageContaining("on the broken page")
                .hasMessageContaining("image-alt (critical) at [\"img\"]");
        assertThatThrownBy(() -> chromium.assertAccessibleAtWidths("axe-broken"))
                .hasMessageContaining("390 px: html-has-lang").hasMessageContaining("1280 px: image-alt");
    }

    @Test
    void aPageWithoutThemPasses() {
        ChromeDriver browser = chromium.open();
        browser.get(page(FINE));

        assertThat(AxeCore.violations(browser)).isEmpty();
        AxeCore.assertNoViolations(browser, "the fine page");
        chromium.assertAccessibleAtWidths("axe-fine");
    }

    private static String page(String html) {
        return "data:text/html;charset=utf-8," + URLEncoder.encode(html, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
