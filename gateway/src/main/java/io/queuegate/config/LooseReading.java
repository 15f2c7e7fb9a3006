package io.queuegate.config;

import java.util.Locale;

/**
 * A path read as loosely as a shop behind the gateway could read it: Express and ASP.NET route
 * without regard to ASCII letter case, and Rails routes {@code orders(.:format)}, so
 * {@code /api/products/10/ORDERS} and {@code /api/products/10/orders.json} are the order action of
 * {@code /api/products/10/orders}. The gateway keeps every promise on this reading: a protected
 * path is recognised whatever its letter case and format suffix (matched case-insensitively,
 * {@code paths.ProtectedPaths}), a {@code complete-on} request likewise, and a product id is read
 * without its suffix and, by default, in lower case. What {@code paths.CanonicalPaths} refuses (an
 * encoded separator, a dot segment) never gets here.
 */
public final class LooseReading {

    private LooseReading() {
    }

    /**
     * The path without a trailing {@code /} and without the format suffix of its last segment; its
     * letter case is left to the case-insensitive matching of the caller.
     */
    public static String of(String path) {
        String trimmed = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        int lastSegment = trimmed.lastIndexOf('/') + 1;
        int suffix = suffixStart(trimmed, lastSegment);
        return suffix < 0 ? trimmed : trimmed.substring(0, suffix);
    }

    /**
     * The path without a trailing {@code /} and without anything from its last segment's first
     * {@code .} on: the reading of a router that takes any format (Rails' {@code orders(.:format)}
     * takes {@code orders.1}; Spring MVC's old suffix matching took {@code orders.json.xml}), for
     * the request that completes a purchase, where reading too loosely only ever takes a claim.
     */
    public static String withAnyFormat(String path) {
        String trimmed = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        int lastSegment = trimmed.lastIndexOf('/') + 1;
        int dot = trimmed.indexOf('.', lastSegment);
        return dot > lastSegment ? trimmed.substring(0, dot) : trimmed;
    }

    /** A product id as a path segment spells it, without its format suffix ({@code 10.json} is {@code 10}). */
    public static String withoutSuffix(String segment) {
        int suffix = suffixStart(segment, 0);
        return suffix < 0 ? segment : segment.substring(0, suffix);
    }

    /** ASCII letters in lower case, the only case folding a shop's router is known to do. */
    public static String folded(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                return text.toLowerCase(Locale.ROOT);
            }
        }
        return text;
    }

    /**
     * Where a format suffix ({@code .} and one or more ASCII letters, ending the text) starts in the
     * text from {@code from} on, or -1 when there is none or nothing stands before it.
     */
    private static int suffixStart(String text, int from) {
        int end = text.length();
        int i = end - 1;
        while (i > from && isAsciiLetter(text.charAt(i))) {
            i--;
        }
        return i > from && i < end - 1 && text.charAt(i) == '.' ? i : -1;
    }

    private static boolean isAsciiLetter(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z';
    }
}
