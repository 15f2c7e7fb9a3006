package io.queuegate.routes;

/**
 * Whether two protected routes' {@code product-id-pattern}s could take the same product id. The
 * proof is kept small on purpose: two patterns are apart only when the literal characters they
 * start with differ at some place both have one ({@code A[0-9]+} and {@code B[0-9]+}). Everything
 * else may overlap: no pattern, an alternation, a class or any other construct at the start, and
 * letters that differ only in case (a product id may be folded to lower case before it is matched).
 */
final class ProductIdPatterns {

    /** What makes the character before it optional or repeated, so it is no longer a fixed start. */
    private static final String QUANTIFIERS = "?*+{";

    private ProductIdPatterns() {
    }

    /**
     * Whether some product id could match both patterns, as far as this can tell: {@code false}
     * only when it proved they cannot.
     *
     * @param first a route's pattern, or {@code null} (any id)
     * @param second another route's pattern, or {@code null} (any id)
     */
    static boolean mayOverlap(String first, String second) {
        String a = literalStart(first);
        String b = literalStart(second);
        for (int i = 0; i < Math.min(a.length(), b.length()); i++) {
            if (Character.toLowerCase(a.charAt(i)) != Character.toLowerCase(b.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The characters every id the pattern matches starts with, as far as a plain reading of its
     * first characters shows: letters, digits, {@code -} and {@code _}, up to the first other
     * character, leaving out one that a quantifier follows. Empty for no pattern and for any pattern
     * with an alternation ({@code |}), which could start otherwise.
     */
    static String literalStart(String pattern) {
        if (pattern == null || pattern.indexOf('|') >= 0) {
            return "";
        }
        StringBuilder start = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (!plain(c) || (i + 1 < pattern.length() && QUANTIFIERS.indexOf(pattern.charAt(i + 1)) >= 0)) {
                break;
            }
            start.append(c);
        }
        return start.toString();
    }

    /** ASCII only: whatever else a pattern holds may be a construct, or fold into another letter. */
    private static boolean plain(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    }
}
