package io.queuegate.web;

import java.util.Locale;

/**
 * Who a shopper page is rendered for: the language it is written in, and the address it answers
 * (a checked path on the gateway's origin, or {@code null} when not known), which its language
 * switch and its leave form bring the shopper back to.
 */
public record PageRequest(Locale locale, String back) {

    public PageRequest {
        locale = locale != null ? locale : Locale.ENGLISH;
        back = BackPath.checked(back);
    }

    /** A page in {@code locale} whose address is not known: its switch comes back to the site's root. */
    public static PageRequest of(Locale locale) {
        return new PageRequest(locale, null);
    }
}
