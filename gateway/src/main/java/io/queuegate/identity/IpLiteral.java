package io.queuegate.identity;

import java.util.Arrays;

/**
 * Literal IP addresses, read without ever asking DNS: {@code InetAddress.getByName} sends
 * anything it cannot read as a literal (such as {@code cafe}, all hex digits) to the resolver,
 * which would block the event loop and let whoever answers for that name choose the address.
 * Accepted are an IPv4 address as four decimal numbers of 0 to 255 without leading zeros (so the
 * ambiguous {@code 1234}, {@code 0x7f.1} and {@code 010.0.0.1} are not), and an IPv6 address in
 * the text forms of RFC 4291 (hex groups, one {@code ::}, an IPv4 tail), without a zone. An
 * IPv4-mapped IPv6 address ({@code ::ffff:a.b.c.d}) is its IPv4 address, as the JDK reads it.
 */
public final class IpLiteral {

    private static final int IPV4 = 4;
    private static final int IPV6 = 16;

    private IpLiteral() {
    }

    /** The address's bytes (4 or 16), or {@code null} when {@code text} is not exactly a literal address. */
    public static byte[] parse(String text) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        return text.indexOf(':') < 0 ? ipv4(text, 0, text.length()) : ipv6(text);
    }

    /**
     * A hop of {@code X-Forwarded-For}: a literal address, possibly written with a port
     * ({@code 203.0.113.9:443}) or in brackets ({@code [2001:db8::1]}, {@code [2001:db8::1]:443}),
     * and with blanks around it. {@code null} for anything else.
     */
    public static byte[] hop(String hop) {
        if (hop == null) {
            return null;
        }
        String text = hop.trim();
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close < 0 || close + 1 < text.length() && !isPort(text, close + 2, text.charAt(close + 1))) {
                return null;
            }
            String inside = text.substring(1, close);
            // Brackets are for IPv6 only.
            return inside.indexOf(':') < 0 ? null : ipv6(inside);
        }
        int colon = text.indexOf(':');
        if (colon >= 0 && colon == text.lastIndexOf(':')) {
            // One colon: an IPv4 address and its port (an IPv6 address has at least two).
            return isPort(text, colon + 1, ':') ? ipv4(text, 0, colon) : null;
        }
        return parse(text);
    }

    private static boolean isPort(String text, int from, char separator) {
        int digits = text.length() - from;
        if (separator != ':' || digits < 1 || digits > 5) {
            return false;
        }
        int port = 0;
        for (int i = from; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
            port = port * 10 + (c - '0');
        }
        return port <= 65535;
    }

    /** Four decimal numbers 0-255 in {@code text[from, to)}, separated by dots, without leading zeros. */
    private static byte[] ipv4(String text, int from, int to) {
        byte[] bytes = new byte[IPV4];
        int part = 0;
        int start = from;
        for (int i = from; i <= to; i++) {
            if (i < to && text.charAt(i) != '.') {
                continue;
            }
            int length = i - start;
            if (part == IPV4 || length < 1 || length > 3 || length > 1 && text.charAt(start) == '0') {
                return null;
            }
            int value = 0;
            for (int j = start; j < i; j++) {
                char c = text.charAt(j);
                if (c < '0' || c > '9') {
                    return null;
                }
                value = value * 10 + (c - '0');
            }
            if (value > 255) {
                return null;
            }
            bytes[part++] = (byte) value;
            start = i + 1;
        }
        return part == IPV4 ? bytes : null;
    }

    private static byte[] ipv6(String text) {
        byte[] bytes = new byte[IPV6];
        int length = text.length();
        int gap = text.indexOf("::");
        if (gap >= 0 && text.indexOf("::", gap + 1) >= 0) {
            return null;
        }
        // The groups before the gap (or all of them) fill from the front, those after it from the back.
        int[] head = gap < 0 ? groups(text, 0, length, true) : groups(text, 0, gap, false);
        int[] tail = gap < 0 ? new int[0] : groups(text, gap + 2, length, true);
        if (head == null || tail == null) {
            return null;
        }
        int words = head.length + tail.length;
        if (gap < 0 ? words != 8 : words > 7) {
            return null;
        }
        for (int i = 0; i < head.length; i++) {
            bytes[2 * i] = (byte) (head[i] >> 8);
            bytes[2 * i + 1] = (byte) head[i];
        }
        int offset = 8 - tail.length;
        for (int i = 0; i < tail.length; i++) {
            bytes[2 * (offset + i)] = (byte) (tail[i] >> 8);
            bytes[2 * (offset + i) + 1] = (byte) tail[i];
        }
        return isIpv4Mapped(bytes) ? Arrays.copyOfRange(bytes, 12, 16) : bytes;
    }

    /**
     * The 16-bit words of colon-separated hex groups in {@code text[from, to)}; an empty range is
     * none. When {@code last}, the final group may be an IPv4 address (two words).
     */
    private static int[] groups(String text, int from, int to, boolean last) {
        if (from == to) {
            return new int[0];
        }
        int[] words = new int[9];
        int count = 0;
        int start = from;
        for (int i = from; i <= to; i++) {
            if (i < to && text.charAt(i) != ':') {
                continue;
            }
            int length = i - start;
            if (count >= 8 || length < 1) {
                return null;
            }
            if (i == to && last && text.lastIndexOf('.', to - 1) >= start) {
                byte[] ipv4 = ipv4(text, start, to);
                if (ipv4 == null || count > 6) {
                    return null;
                }
                words[count++] = ((ipv4[0] & 0xFF) << 8) | (ipv4[1] & 0xFF);
                words[count++] = ((ipv4[2] & 0xFF) << 8) | (ipv4[3] & 0xFF);
                break;
            }
            if (length > 4) {
                return null;
            }
            int value = 0;
            for (int j = start; j < i; j++) {
                int digit = hexDigit(text.charAt(j));
                if (digit < 0) {
                    return null;
                }
                value = value * 16 + digit;
            }
            words[count++] = value;
            start = i + 1;
        }
        return Arrays.copyOf(words, count);
    }

    /** An ASCII hex digit's value, else -1 (Character.digit would take other scripts' digits too). */
    private static int hexDigit(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    }

    private static boolean isIpv4Mapped(byte[] bytes) {
        for (int i = 0; i < 10; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return bytes[10] == (byte) 0xFF && bytes[11] == (byte) 0xFF;
    }
}
