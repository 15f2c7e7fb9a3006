package io.queuegate.web;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/** What every shopper's page shows: the shop's branding, the page's language and the switch to the others. */
final class PageFrame {

    private final PageTexts texts;
    private final PageBranding branding;
    private final PageLanguages languages;

    PageFrame(PageTexts texts, PageBranding branding, PageLanguages languages) {
        this.texts = texts;
        this.branding = branding;
        this.languages = languages;
    }

    /** What every page shows of the shop, the page's language, and the switch to the others. */
    Map<String, String> values(PageRequest request) {
        Locale locale = request.locale();
        Map<String, String> values = new HashMap<>();
        values.put("lang", locale.getLanguage());
        values.put("html:languageSwitch", languages.markup(locale, request.back(),
                texts.message("queuegate.page.language", locale)));
        values.put("shopName", branding.shopName() == null ? "" : branding.shopName());
        values.put("tagline", branding.tagline() == null ? "" : branding.tagline());
        values.put("logoUrl", branding.logoUrl() == null ? "" : branding.logoUrl());
        // Beside the shop's name the logo says nothing more to a screen reader.
        values.put("logoAlt", branding.shopName() != null ? "" : texts.message("queuegate.page.logo", locale));
        values.put("brandSection", branding.shown() ? "" : "hidden");
        values.put("logoSection", branding.logoUrl() == null ? "hidden" : "");
        values.put("shopNameSection", branding.shopName() == null ? "hidden" : "");
        values.put("taglineSection", branding.tagline() == null ? "hidden" : "");
        values.put("primaryColor", branding.primary());
        values.put("accentColor", branding.accent());
        return values;
    }

    /**
     * A notice page's values: what every page shows, its title and text, and a link onwards
     * ({@code null} for none).
     *
     * @param refreshSeconds when the page asks again; 0 for never
     */
    Map<String, String> notice(PageRequest request, String title, String text, long refreshSeconds, String link,
            String linkText) {
        Map<String, String> values = values(request);
        values.put("title", title);
        values.put("text", text);
        // A page that has nothing to wait for does not reload: a day is as good as never.
        values.put("retryAfter", Long.toString(refreshSeconds > 0 ? refreshSeconds : WaitingPage.NEVER));
        values.put("linkUrl", link == null ? "" : link);
        values.put("linkText", linkText == null ? "" : linkText);
        values.put("linkSection", link == null ? "hidden" : "");
        return values;
    }
}
