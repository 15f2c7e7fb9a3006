package io.queuegate.web;

/**
 * What a shop puts on every shopper page ({@code queuegate.page.*}): its name, its logo, its two
 * colours and a line of text. The values come checked ({@code QueueGateProperties.Page}); the pages
 * HTML-escape them like every other value.
 *
 * @param shopName the shop's name, or {@code null}
 * @param logoUrl an absolute https URL or a path on the gateway, or {@code null}
 * @param logoOrigin the origin of an absolute logo URL ({@code https://host[:port]}), the one the
 *                   pages' Content-Security-Policy adds to {@code img-src}; {@code null} otherwise
 * @param primaryColor {@code #rgb} or {@code #rrggbb}, or {@code null} for the shipped colour
 * @param accentColor {@code #rgb} or {@code #rrggbb}, or {@code null} for the shipped colour
 * @param tagline a line of text under the name, or {@code null}
 */
public record PageBranding(String shopName, String logoUrl, String logoOrigin, String primaryColor,
        String accentColor, String tagline) {

    /** The pages as shipped: no name, no logo, the shipped colours. */
    public static final PageBranding NONE = new PageBranding(null, null, null, null, null, null);

    static final String SHIPPED_PRIMARY = "#1d1d1f";
    static final String SHIPPED_ACCENT = "#0b57d0";

    String primary() {
        return primaryColor != null ? primaryColor : SHIPPED_PRIMARY;
    }

    String accent() {
        return accentColor != null ? accentColor : SHIPPED_ACCENT;
    }

    boolean shown() {
        return shopName != null || logoUrl != null || tagline != null;
    }
}
