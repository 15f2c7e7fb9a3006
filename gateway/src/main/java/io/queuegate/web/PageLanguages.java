package io.queuegate.web;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.springframework.http.HttpCookie;
import org.springframework.http.ResponseCookie;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.util.HtmlUtils;

/**
 * The languages the shopper pages offer in their language switch ({@code queuegate.page.languages})
 * and the shopper's choice among them: a cookie, {@value #COOKIE}, set by the switch's link
 * ({@code GET /queue/language/{tag}}), wins over the browser's {@code Accept-Language} on every page.
 */
public final class PageLanguages {

    /** The cookie that holds the shopper's choice: a language tag of the offered ones. */
    public static final String COOKIE = "queue_lang";

    /** Where the switch's links go: {@code /queue/language/{tag}?back=<the page's path>}. */
    public static final String PATH = QueuePaths.PREFIX + "language/";

    /** A choice is kept for a year: it is a preference, not a secret. */
    static final Duration KEPT = Duration.ofDays(365);

    /** English and Korean, the languages QueueGate's own texts come in. */
    public static final PageLanguages SHIPPED = new PageLanguages(List.of("en", "ko"));

    private final List<Locale> offered;

    /** @param tags IETF language tags ({@code en}, {@code ko}, {@code pt-BR}), in the switch's order */
    public PageLanguages(List<String> tags) {
        List<Locale> locales = new ArrayList<>();
        for (String tag : tags) {
            Locale locale = Locale.forLanguageTag(tag.strip());
            if (locale.getLanguage().isEmpty()) {
                throw new IllegalArgumentException("queuegate.page.languages: '" + tag + "' is not a language tag "
                        + "(en, ko, pt-BR)");
            }
            if (!locales.contains(locale)) {
                locales.add(locale);
            }
        }
        this.offered = List.copyOf(locales);
    }

    /** The offered language {@code tag} names (case aside), or {@code null}. */
    public Locale offered(String tag) {
        if (tag == null || tag.isBlank() || tag.length() > 35) {
            return null;
        }
        Locale asked = Locale.forLanguageTag(tag.strip());
        for (Locale locale : offered) {
            if (locale.toLanguageTag().equalsIgnoreCase(asked.toLanguageTag())) {
                return locale;
            }
        }
        return null;
    }

    /** The shopper's chosen language when the request carries one that is offered, else {@code browser}'s. */
    public Locale of(ServerHttpRequest request, Locale browser) {
        HttpCookie chosen = request.getCookies().getFirst(COOKIE);
        Locale locale = chosen == null ? null : offered(chosen.getValue());
        return locale != null ? locale : browser;
    }

    /** The cookie that keeps {@code locale} as the shopper's choice. */
    ResponseCookie cookie(Locale locale, boolean secure) {
        // Not HttpOnly: the shop's own pages may read the shopper's choice.
        return ResponseCookie.from(COOKIE, locale.toLanguageTag()).path("/").maxAge(KEPT).sameSite("Lax")
                .secure(secure).build();
    }

    /**
     * The switch: a navigation landmark named {@code label}, with a link per offered language in
     * that language's own name and script, the page's own marked as current; each comes back to
     * {@code back} (a checked path), or to the site's root when {@code null}. Markup, every value
     * escaped.
     */
    String markup(Locale current, String back, String label) {
        if (offered.size() < 2) {
            return "";
        }
        StringBuilder html = new StringBuilder("<nav class=\"languages\" aria-label=\"")
                .append(HtmlUtils.htmlEscape(label, "UTF-8")).append("\"><ul>");
        for (Locale locale : offered) {
            String tag = locale.toLanguageTag();
            String href = PATH + URLEncoder.encode(tag, StandardCharsets.UTF_8)
                    + (back == null ? "" : "?back=" + URLEncoder.encode(back, StandardCharsets.UTF_8));
            boolean isCurrent = current != null && current.getLanguage().equals(locale.getLanguage())
                    && (locale.getCountry().isEmpty() || locale.getCountry().equals(current.getCountry()));
            html.append("<li><a href=\"").append(HtmlUtils.htmlEscape(href, "UTF-8")).append("\" hreflang=\"")
                    .append(HtmlUtils.htmlEscape(tag, "UTF-8")).append("\" lang=\"")
                    .append(HtmlUtils.htmlEscape(tag, "UTF-8")).append('"')
                    .append(isCurrent ? " aria-current=\"true\"" : "").append('>')
                    .append(HtmlUtils.htmlEscape(ownName(locale), "UTF-8")).append("</a></li>");
        }
        return html.append("</ul></nav>").toString();
    }

    /** "English", "한국어", "Português (Brasil)": a language as its speakers write it. */
    static String ownName(Locale locale) {
        String name = locale.getDisplayName(locale);
        return name.isEmpty() ? locale.toLanguageTag() : name.substring(0, 1).toUpperCase(locale) + name.substring(1);
    }
}
