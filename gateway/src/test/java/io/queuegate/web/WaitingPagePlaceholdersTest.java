package io.queuegate.web;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every page the gateway renders fills every placeholder its template holds, in every state and
 * language: a placeholder added to a template for one state is easily left raw in another (the
 * pre-queue page once showed a shopper {@code {{soldOutText}}}).
 */
class WaitingPagePlaceholdersTest {

    @ParameterizedTest
    @ValueSource(strings = {"en", "ko"})
    void everyStateFillsEveryPlaceholder(String language) {
        WaitingPage page = page();
        PageRequest request = new PageRequest(Locale.forLanguageTag(language), "/shop/42");
        List<String> rendered = new ArrayList<>();
        rendered.add(page.render("42", null, 3, null, 5, null, null, null, 3, request));
        rendered.add(page.render("42", "Air Runner", 3, 60L, 5, "ab".repeat(32), 10L, true, 9, request));
        rendered.add(page.render("42", "Air Runner", 30, 600L, 5, null, 2L, false, 40, request));
        rendered.add(page.renderPreQueue("42", null, Instant.parse("2030-01-01T00:00:00Z"), 20, null, 0, null,
                request));
        rendered.add(page.renderPreQueue("42", "Air Runner", Instant.parse("2030-01-01T00:00:00Z"), 20,
                "ab".repeat(32), 120, Instant.parse("2030-01-01T00:10:00Z"), request));
        rendered.add(page.renderChallenge("{\"salt\":\"s\"}", 10, request));
        rendered.add(page.renderChallenge("{\"salt\":\"s\"}", -1, request));
        for (WaitingPage.Notice notice : WaitingPage.Notice.values()) {
            rendered.add(page.renderNotice(notice, 30, request));
        }
        rendered.add(page.renderSoldOut("Air Runner", true, request));
        rendered.add(page.renderSoldOut("Air Runner", false, request));
        rendered.add(page.renderLeft("Air Runner", request));
        // "}}" may close the refusals' JSON; an opening "{{" is only ever a placeholder.
        assertThat(rendered).allSatisfy(html -> assertThat(html).doesNotContain("{{"));
    }

    private static WaitingPage page() {
        return WaitingPagePolicyTest.page(PageBranding.NONE);
    }
}
