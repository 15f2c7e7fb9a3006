package io.queuegate.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Pattern;

import org.springframework.core.io.ClassPathResource;

/**
 * The proof-of-work search as the challenge page's Web Worker runs it ({@code {{html:powSearch}}}):
 * the client's {@code pow.js}, so the search has one source, which the page and the browser client
 * share. The page starts its worker from a {@code blob:} address as a classic script, which every
 * browser with Web Workers runs (a module worker it would not), so the module's {@code export}
 * keywords are dropped; the functions are the same.
 */
final class PowSearchScript {

    /** The one source of the search, beside the client that imports it as a module. */
    static final String SOURCE = ClientScripts.LOCATION + "pow.js";

    private static final Pattern EXPORT = Pattern.compile("(?m)^export\\s+");

    /** {@link #SOURCE} as a classic script, for a {@code <script type="text/plain">} block. */
    static final String CLASSIC = classic(read(SOURCE));

    private PowSearchScript() {
    }

    static String classic(String module) {
        String script = EXPORT.matcher(module).replaceAll("");
        // Inside the page's script block these would end it early or change how it is read.
        String lower = script.toLowerCase(Locale.ROOT);
        if (lower.contains("</script") || lower.contains("<!--") || Pattern.compile("(?m)^import\\s").matcher(script)
                .find()) {
            throw new IllegalStateException(SOURCE + " cannot go into the challenge page's script block as it is");
        }
        return script;
    }

    private static String read(String path) {
        try (InputStream in = new ClassPathResource(path).getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("QueueGate's proof-of-work search " + path + " cannot be read", ex);
        }
    }
}
