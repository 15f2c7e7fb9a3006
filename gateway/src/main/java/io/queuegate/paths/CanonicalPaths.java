package io.queuegate.paths;

/**
 * Which request paths are written one way only. A backend that normalises paths ({@code //},
 * {@code /./}, {@code /x/../}, {@code %2F}) would otherwise act on a path that no route pattern,
 * {@code complete-on} rule or product id check of the gateway saw: a purchase that never
 * completes its session, a product page that falls through to a catch-all route. Modelled on
 * Spring Security's {@code StrictServerWebExchangeFirewall}: a raw (still encoded) path is
 * canonical when it starts with {@code /}, has no empty, {@code .} or {@code ..} segment, only
 * printable ASCII, no {@code \} or {@code ;}, and no encoded {@code /}, {@code \}, {@code .},
 * {@code %}, {@code ;} or control character. A trailing {@code /} is judged by the route it would
 * reach ({@link TrailingSlashFilter}, {@link RoutedTrailingSlashFilter}).
 */
public final class CanonicalPaths {

    private CanonicalPaths() {
    }

    /** Why {@code rawPath} is not canonical, or {@code null} when it is (a trailing slash aside). */
    public static String problem(String rawPath) {
        int length = rawPath.length();
        if (length == 0 || rawPath.charAt(0) != '/') {
            return "the path must start with '/'";
        }
        int segmentStart = 1;
        for (int i = 1; i <= length; i++) {
            char c = i < length ? rawPath.charAt(i) : '/';
            if (c < 0x21 || c > 0x7E) {
                return "the path may only hold printable ASCII characters (percent-encode the rest)";
            }
            if (c == '\\' || c == ';') {
                return "the path may not hold '" + c + "'";
            }
            if (c == '%' && encodesForbidden(rawPath, i)) {
                return "the path may not hold an encoded '/', '\\', '.', '%', ';' or control character";
            }
            if (c == '/') {
                int segment = i - segmentStart;
                // An empty segment before another '/' is "//"; an empty last one is a trailing slash.
                if (segment == 0 && i < length) {
                    return "the path may not hold empty segments ('//')";
                }
                if (segment == 1 && rawPath.charAt(segmentStart) == '.'
                        || segment == 2 && rawPath.startsWith("..", segmentStart)) {
                    return "the path may not hold '.' or '..' segments";
                }
                segmentStart = i + 1;
            }
        }
        return null;
    }

    /** Whether {@code rawPath} ends with a {@code /} after at least one segment. */
    public static boolean hasTrailingSlash(String rawPath) {
        return rawPath.length() > 1 && rawPath.charAt(rawPath.length() - 1) == '/';
    }

    private static boolean encodesForbidden(String path, int percent) {
        if (percent + 2 >= path.length()) {
            return true; // a dangling '%' is no encoding at all
        }
        int high = Character.digit(path.charAt(percent + 1), 16);
        int low = Character.digit(path.charAt(percent + 2), 16);
        if (high < 0 || low < 0) {
            return true;
        }
        int value = high * 16 + low;
        return value < 0x20 || value == 0x7F || value == '/' || value == '\\' || value == '.' || value == '%'
                || value == ';';
    }
}
