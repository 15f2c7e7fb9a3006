package io.queuegate.config;

import java.util.Locale;
import java.util.Map;

/** How a product's name is chosen for a page's language from its display-name and display-names. */
public final class DisplayNames {

    private DisplayNames() {
    }

    /**
     * The name for {@code locale}: by its language and region ({@code pt-br}), else by its language
     * ({@code pt}), else {@code fallback} (display-name, or {@code null}).
     *
     * @param byLanguage names keyed by lower-case language tag
     */
    public static String in(Map<String, String> byLanguage, String fallback, Locale locale) {
        if (byLanguage == null || byLanguage.isEmpty() || locale == null) {
            return fallback;
        }
        String exact = byLanguage.get(locale.toLanguageTag().toLowerCase(Locale.ROOT));
        if (exact != null) {
            return exact;
        }
        String language = byLanguage.get(locale.getLanguage());
        return language != null ? language : fallback;
    }
}
