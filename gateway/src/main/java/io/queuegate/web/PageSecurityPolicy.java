package io.queuegate.web;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Content-Security-Policy a rendered page is served with ({@link WaitingPage#contentSecurityPolicy}):
 * its own inline scripts and styles by hash, and images from the gateway and the logo's one origin.
 */
final class PageSecurityPolicy {

    /** A page's inline scripts and styles, whose hashes its Content-Security-Policy lists. */
    private static final Pattern INLINE = Pattern.compile("<(script|style)\\b([^>]*)>(.*?)</\\1\\s*>",
            Pattern.DOTALL | Pattern.CASE_INSENSITIVE);
    private static final Pattern SOURCED = Pattern.compile("\\bsrc\\s*=", Pattern.CASE_INSENSITIVE);

    /** More distinct inline blocks than this means a template puts values into them: hash, do not keep. */
    private static final int MAX_KEPT_HASHES = 64;

    private final PageBranding branding;
    private final Map<String, String> hashes = new ConcurrentHashMap<>();

    PageSecurityPolicy(PageBranding branding) {
        this.branding = branding;
    }

    String of(String html) {
        StringBuilder scripts = new StringBuilder();
        StringBuilder styles = new StringBuilder();
        Matcher inline = INLINE.matcher(html);
        while (inline.find()) {
            if (inline.group(1).equalsIgnoreCase("script") && SOURCED.matcher(inline.group(2)).find()) {
                continue;
            }
            (inline.group(1).equalsIgnoreCase("script") ? scripts : styles).append(" '").append(hash(inline.group(3)))
                    .append('\'');
        }
        return "default-src 'none'; script-src 'self'" + scripts + "; style-src 'self'" + styles
                + "; img-src 'self'" + (branding.logoOrigin() == null ? "" : " " + branding.logoOrigin())
                + "; connect-src 'self'; worker-src blob:; base-uri 'none'; form-action 'self'";
    }

    private String hash(String block) {
        String known = hashes.get(block);
        if (known != null) {
            return known;
        }
        String hash;
        try {
            hash = "sha256-" + Base64.getEncoder().encodeToString(
                    MessageDigest.getInstance("SHA-256").digest(block.getBytes(StandardCharsets.UTF_8)));
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("every Java has SHA-256", ex);
        }
        if (hashes.size() < MAX_KEPT_HASHES) {
            hashes.put(block, hash);
        }
        return hash;
    }
}
