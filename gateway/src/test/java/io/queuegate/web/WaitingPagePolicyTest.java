package io.queuegate.web;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.Base64;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.springframework.context.support.ResourceBundleMessageSource;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Content-Security-Policy each shipped page is served with lists exactly the hashes of the
 * page's inline scripts and styles as rendered (branding colours included), and widens
 * {@code img-src} to a logo's one origin and no further.
 */
class WaitingPagePolicyTest {

    private static final Pattern SCRIPT = Pattern.compile("<script>(.*?)</script>", Pattern.DOTALL);
    private static final Pattern STYLE = Pattern.compile("<style>(.*?)</style>", Pattern.DOTALL);

    @Test
    void listsTheRenderedPagesOwnInlineBlocksByHash() throws Exception {
        WaitingPage page = page(new PageBranding("Shop", "https://cdn.example.com:8443/logo.svg",
                "https://cdn.example.com:8443", "#0f766e", "#c2410c", null));
        String waiting = page.render("42", "Air Runner", 3, 60L, 5, null, Locale.ENGLISH);
        String policy = page.contentSecurityPolicy(waiting);
        assertThat(policy).contains("script-src 'self' '" + hash(SCRIPT, waiting) + "';")
                .contains("style-src 'self' '" + hash(STYLE, waiting) + "';")
                .contains("; img-src 'self' https://cdn.example.com:8443; ")
                .contains("worker-src blob:");
        assertThat(waiting).contains("--qg-primary: #0f766e; --qg-accent: #c2410c;");

        String challenge = page.renderChallenge("{\"salt\":\"s\"}", Locale.KOREAN);
        assertThat(page.contentSecurityPolicy(challenge)).contains("'" + hash(SCRIPT, challenge) + "'")
                .contains("'" + hash(STYLE, challenge) + "'");
        // Its style, its script, and the worker's source it keeps as text (listed, though never run as a script).
        assertThat(page.contentSecurityPolicy(challenge).split("'sha256-")).hasSize(4);
    }

    @Test
    void aPathLogoOrNoneKeepsImagesOnTheGatewaysOwnOrigin() {
        WaitingPage page = page(PageBranding.NONE);
        String notice = page.renderNotice(WaitingPage.Notice.ROOM_CLOSED, 30, Locale.ENGLISH);
        assertThat(page.contentSecurityPolicy(notice)).contains("; img-src 'self'; ").doesNotContain("https:")
                .doesNotContain("unsafe");
        assertThat(notice).contains("--qg-primary: #1d1d1f;").contains("<header class=\"brand\" hidden>");
    }

    @Test
    void aShopNameWithMarkupIsText() {
        WaitingPage page = page(new PageBranding("<script>alert(1)</script> & Co", null, null, null, null,
                "\"quoted\" <b>line</b>"));
        String html = page.renderPreQueue("drop", null, java.time.Instant.parse("2030-01-01T00:00:00Z"), 20, null,
                Locale.ENGLISH);
        assertThat(html).contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co")
                .contains("&quot;quoted&quot; &lt;b&gt;line&lt;/b&gt;").doesNotContain("<script>alert(1)");
    }

    /** The shipped templates and messages, with {@code branding}: the page the gateway renders. */
    static WaitingPage page(PageBranding branding) {
        ResourceBundleMessageSource messages = new ResourceBundleMessageSource();
        messages.setBasenames("queuegate/messages");
        messages.setDefaultEncoding("UTF-8");
        messages.setFallbackToSystemLocale(false);
        return new WaitingPage(new ClassPathResource("queuegate/waiting-page.html"),
                new ClassPathResource("queuegate/unavailable-page.html"),
                new ClassPathResource("queuegate/challenge-page.html"), messages, branding, Clock.systemUTC());
    }

    private static String hash(Pattern block, String html) throws Exception {
        Matcher matcher = block.matcher(html);
        assertThat(matcher.find()).isTrue();
        return "sha256-" + Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256")
                .digest(matcher.group(1).getBytes(StandardCharsets.UTF_8)));
    }
}
