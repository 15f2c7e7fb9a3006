package io.queuegate.web;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The challenge page's solver is the client's {@code pow.js}, put in at render time: the page
 * keeps no copy of the search, and its Content-Security-Policy lists the block as rendered.
 */
class ChallengePageSolverTest {

    private static final Pattern SOLVER = Pattern.compile("<script type=\"text/plain\" id=\"solver\">(.*?)</script>",
            Pattern.DOTALL);

    @Test
    void theRenderedSolverIsTheClientsSearchAsAClassicScript() throws Exception {
        WaitingPage page = page();
        String html = page.renderChallenge("{\"salt\":\"s\"}", Locale.ENGLISH);
        Matcher solver = SOLVER.matcher(html);
        assertThat(solver.find()).isTrue();
        String block = solver.group(1);
        String module = read(PowSearchScript.SOURCE);
        assertThat(module).contains("export function searchRange(");
        assertThat(block).contains(module.replace("export function searchRange(", "function searchRange(")
                .replace("export async function solve(", "async function solve("))
                .doesNotContainPattern("(?m)^export\\s")
                .contains("onmessage = function (event)")
                .doesNotContain("{{");
        assertThat(page.contentSecurityPolicy(html)).contains("'sha256-" + Base64.getEncoder().encodeToString(
                MessageDigest.getInstance("SHA-256").digest(block.getBytes(StandardCharsets.UTF_8))) + "'");
    }

    @Test
    void theTemplateKeepsNoCopyOfTheSearch() throws Exception {
        String template = read(WaitingPage.DEFAULT_CHALLENGE_TEMPLATE);
        // The first of SHA-256's round constants: only pow.js may hold them.
        assertThat(template).contains("{{html:powSearch}}").doesNotContain("0x428a2f98");
    }

    @Test
    void aSearchThatWouldEndThePagesScriptBlockIsRefused() {
        assertThatThrownBy(() -> PowSearchScript.classic("var a = '</script>';"))
                .isInstanceOf(IllegalStateException.class);
    }

    private static WaitingPage page() {
        return WaitingPagePolicyTest.page(PageBranding.NONE);
    }

    private static String read(String path) throws IOException {
        try (InputStream in = new ClassPathResource(path).getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
