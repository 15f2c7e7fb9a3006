package io.queuegate.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;

/**
 * axe-core (Deque's accessibility rules engine, {@code axe/axe.min.js} in this module's resources)
 * run on the page a test's browser shows: it is injected into the current document, run with the
 * WCAG 2.2 A and AA tags ({@link #TAGS}) and its violations returned, one per element. A page's
 * Content-Security-Policy does not stop it: WebDriver's scripts run outside the page's policy.
 *
 * <pre>
 * AxeCore.assertNoViolations(browser, "waiting page, ko, 390 px");
 * </pre>
 */
public final class AxeCore {

    /** The rules run: WCAG 2.0 A and AA, 2.1 AA and 2.2 AA, as axe-core tags them. */
    public static final List<String> TAGS = List.of("wcag2a", "wcag2aa", "wcag21aa", "wcag22aa");

    private static final String SOURCE = "axe/axe.min.js";

    private static volatile String source;

    private static final String RUN = """
            var done = arguments[arguments.length - 1];
            window.axe.run(document, { runOnly: { type: 'tag', values: arguments[0] }, resultTypes: ['violations'] })
              .then(function (result) {
                var found = [];
                result.violations.forEach(function (rule) {
                  rule.nodes.forEach(function (node) {
                    found.push({ rule: rule.id, impact: node.impact || rule.impact || '',
                      target: JSON.stringify(node.target), help: rule.help,
                      summary: node.failureSummary || '' });
                  });
                });
                done(found);
              }, function (error) { done('axe-core failed: ' + error); });
            """;

    private AxeCore() {
    }

    /**
     * One element that breaks one rule.
     *
     * @param rule axe-core's rule id ({@code color-contrast})
     * @param impact {@code minor}, {@code moderate}, {@code serious} or {@code critical}
     * @param target the element's CSS selector, as axe-core writes it
     * @param message what the rule asks and what this element lacks
     */
    public record Violation(String rule, String impact, String target, String message) {

        @Override
        public String toString() {
            return rule + " (" + impact + ") at " + target + ": " + message;
        }
    }

    /** The violations of the page {@code browser} shows now, in axe-core's order; empty when none. */
    public static List<Violation> violations(WebDriver browser) {
        JavascriptExecutor page = (JavascriptExecutor) browser;
        if (!Boolean.TRUE.equals(page.executeScript("return typeof window.axe === 'object'"))) {
            page.executeScript(source());
        }
        Duration before = browser.manage().timeouts().getScriptTimeout();
        browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
        Object answer;
        try {
            answer = page.executeAsyncScript(RUN, TAGS);
        }
        finally {
            browser.manage().timeouts().scriptTimeout(before);
        }
        if (!(answer instanceof List<?> found)) {
            throw new IllegalStateException(String.valueOf(answer));
        }
        List<Violation> violations = new ArrayList<>();
        for (Object each : found) {
            Map<?, ?> node = (Map<?, ?>) each;
            String summary = String.valueOf(node.get("summary")).replaceAll("\\s*\\n\\s*", " ").strip();
            violations.add(new Violation(String.valueOf(node.get("rule")), String.valueOf(node.get("impact")),
                    String.valueOf(node.get("target")), node.get("help") + (summary.isEmpty() ? "" : ". " + summary)));
        }
        return violations;
    }

    /**
     * Fails, listing each violation (rule, impact, the element's selector, the message), unless
     * the page {@code browser} shows now has none.
     *
     * @param state what the page shows, for the failure's message ("waiting page, ko, 390 px")
     */
    public static void assertNoViolations(WebDriver browser, String state) {
        List<Violation> violations = violations(browser);
        if (!violations.isEmpty()) {
            StringBuilder message = new StringBuilder().append(violations.size())
                    .append(" accessibility violation(s) (axe-core, ").append(String.join(", ", TAGS)).append(") on ")
                    .append(state).append(" (").append(browser.getCurrentUrl()).append("):");
            violations.forEach(violation -> message.append("\n  - ").append(violation));
            throw new AssertionError(message.toString());
        }
    }

    private static String source() {
        String read = source;
        if (read == null) {
            try (InputStream in = AxeCore.class.getClassLoader().getResourceAsStream(SOURCE)) {
                if (in == null) {
                    throw new IllegalStateException(SOURCE + " is not on the classpath (test-support's resources)");
                }
                read = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
            source = read;
        }
        return read;
    }
}
