package io.queuegate.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.queuegate.config.QueueGateProperties;
import io.queuegate.ops.ManagementPage;

import org.springframework.core.io.ClassPathResource;

/**
 * The operator console's one HTML page ({@code queuegate/console.html}: markup, style and script
 * in one file, no build step), and the Content-Security-Policy it is served with. The policy
 * allows exactly the page's own inline script and style, by their SHA-256, requests to its own
 * origin only, and no framing (a framed console could be clicked through by another site).
 */
public final class ConsolePage implements ManagementPage {

    private static final Pattern SCRIPT = Pattern.compile("<script>(.*?)</script>", Pattern.DOTALL);
    private static final Pattern STYLE = Pattern.compile("<style>(.*?)</style>", Pattern.DOTALL);

    private final String html;
    private final String contentSecurityPolicy;

    public ConsolePage(QueueGateProperties.Console properties) {
        this.html = read("queuegate/console.html")
                .replace("{{pollMillis}}", Long.toString(3_000))
                .replace("{{historyMinutes}}", Long.toString(properties.history().toMinutes()));
        this.contentSecurityPolicy = "default-src 'none'; script-src " + hashes(SCRIPT) + "; style-src "
                + hashes(STYLE) + "; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; "
                + "frame-ancestors 'none'";
    }

    public String html() {
        return html;
    }

    @Override
    public String contentSecurityPolicy() {
        return contentSecurityPolicy;
    }

    private String hashes(Pattern element) {
        List<String> sources = new ArrayList<>();
        Matcher matcher = element.matcher(html);
        while (matcher.find()) {
            sources.add("'sha256-" + Base64.getEncoder().encodeToString(sha256(matcher.group(1))) + "'");
        }
        return sources.isEmpty() ? "'none'" : String.join(" ", sources);
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", ex);
        }
    }

    private static String read(String location) {
        try (InputStream in = new ClassPathResource(location).getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("QueueGate's console page " + location + " cannot be read", ex);
        }
    }
}
