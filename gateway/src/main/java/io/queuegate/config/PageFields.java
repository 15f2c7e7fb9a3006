package io.queuegate.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.regex.Pattern;

/** The checks of {@code queuegate.page}'s branding fields, which go into every shopper's page. */
final class PageFields {

    private static final Pattern COLOR =
            Pattern.compile("#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})");

    private PageFields() {
    }

    static String checkLine(String property, String value, int max) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String line = value.strip();
        if (line.codePointCount(0, line.length()) > max) {
            throw new IllegalArgumentException(property + " must be at most " + max + " characters, was "
                    + line.codePointCount(0, line.length()));
        }
        if (line.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException(property + " must be one line, without control characters "
                    + "(line breaks, tabs)");
        }
        return line;
    }

    // Only what CSS reads as a colour and nothing else: the value goes into the pages' style.
    static String checkColor(String property, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String color = value.strip();
        if (!COLOR.matcher(color).matches()) {
            throw new IllegalArgumentException(property + " must be a colour written #rgb or #rrggbb (#0b57d0), was '"
                    + color + "'");
        }
        return color;
    }

    /*
     * https only: a logo over plain http would be mixed content on a shop served over TLS, and
     * any other scheme (javascript:, data:) has no place in an image's address. A path stays on
     * the gateway's own origin, which the pages already load images from.
     */
    static String checkLogo(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String logo = value.strip();
        String refused = "queuegate.page.logo-url must be an absolute https URL (https://cdn.example.com/logo.svg) "
                + "or a path on the gateway (/static/logo.svg), was '" + logo + "'";
        URI uri;
        try {
            uri = new URI(logo);
        }
        catch (URISyntaxException ex) {
            throw new IllegalArgumentException(refused + ": " + ex.getReason());
        }
        if (uri.isAbsolute()) {
            if (!"https".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null || uri.getRawUserInfo() != null) {
                throw new IllegalArgumentException(refused);
            }
            return logo;
        }
        // "//host/logo" is another origin in disguise.
        if (!logo.startsWith("/") || logo.startsWith("//") || uri.getRawAuthority() != null) {
            throw new IllegalArgumentException(refused);
        }
        return logo;
    }

    /** See {@link QueueGateProperties.Page#logoOrigin()}. */
    static String logoOrigin(String logoUrl) {
        if (logoUrl == null || logoUrl.startsWith("/")) {
            return null;
        }
        URI uri = URI.create(logoUrl);
        return "https://" + uri.getHost() + (uri.getPort() >= 0 ? ":" + uri.getPort() : "");
    }
}
