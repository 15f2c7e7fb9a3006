package io.queuegate.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.springframework.http.HttpHeaders;

/**
 * The other spellings of one header name that a backend reads as that header: CGI, WSGI, Rack
 * and PHP hand a backend {@code X_User_Id}, {@code x-user_id} and {@code X-User-Id} alike as
 * {@code HTTP_X_USER_ID}, so every name that folds to it ({@code _} for {@code -}, any case) is
 * the same header to such a shop. HTTP itself already matches the name in any case; the others
 * are those with another mix of separators.
 */
final class HeaderSpellings {

    /**
     * Beyond this many {@code -} or {@code _} in a name, its other spellings are found by reading
     * every name of the request instead of asking for each spelling.
     */
    private static final int MAX_SEPARATORS_LOOKED_UP = 4;

    private final String name;
    private final String folded;
    /** The name with each other mix of {@code -} and {@code _}, in lower case; null: too many to ask for. */
    private final List<String> separatorMixes;

    HeaderSpellings(String name) {
        this.name = name;
        this.folded = folded(name);
        this.separatorMixes = separatorMixes(name);
    }

    String name() {
        return name;
    }

    /**
     * Whether the forwarded headers may hold another spelling of the name. A name folds to this
     * one exactly when it is one of its separator mixes in any case, so a few lookups answer it
     * for almost every request, where reading every name (a set of them built per call) costs a
     * forwarded request most of a microsecond. The lookups ask the request's own headers, whose
     * names never depend on case, as well as {@code input} when an earlier filter made it (which
     * may be a map that does): what a client sent is found either way.
     */
    boolean mayBeIn(HttpHeaders input, HttpHeaders received) {
        if (separatorMixes == null) {
            // Too many mixes to ask for: every name is read, and folded, so any map's spelling is found.
            return !in(input).isEmpty();
        }
        for (String spelling : separatorMixes) {
            if (received.containsHeader(spelling) || input != received && input.containsHeader(spelling)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The names in {@code headers} that a backend folding {@code _} into {@code -} and case would
     * read as this one, other than this name itself (in any case), exactly as {@code headers}
     * spells them: removing them takes them away whether its names depend on case or not.
     */
    List<String> in(HttpHeaders headers) {
        return spelledIn(headers, false);
    }

    /** As {@link #in}, with this name itself in any case: every name such a backend reads as this one. */
    List<String> allIn(HttpHeaders headers) {
        return spelledIn(headers, true);
    }

    private List<String> spelledIn(HttpHeaders headers, boolean withItself) {
        List<String> found = List.of();
        for (String candidate : headers.headerNames()) {
            if (candidate.length() == name.length() && (withItself || !candidate.equalsIgnoreCase(name))
                    && folded(candidate).equals(folded)) {
                if (found.isEmpty()) {
                    found = new ArrayList<>(2);
                }
                found.add(candidate);
            }
        }
        return found;
    }

    /**
     * {@code name} in lower case with every other choice of {@code -} or {@code _} at each of its
     * separators ({@code X-User-Id}: {@code x_user-id}, {@code x-user_id}, {@code x_user_id}); null
     * when it has more than {@link #MAX_SEPARATORS_LOOKED_UP} of them. Lower case: a
     * case-insensitive map lowers every name it is asked for, and a name already lower costs it
     * nothing.
     */
    static List<String> separatorMixes(String name) {
        List<Integer> separators = new ArrayList<>();
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) == '-' || name.charAt(i) == '_') {
                separators.add(i);
            }
        }
        if (separators.size() > MAX_SEPARATORS_LOOKED_UP) {
            return null;
        }
        List<String> spellings = new ArrayList<>();
        for (int mix = 0; mix < 1 << separators.size(); mix++) {
            char[] spelling = name.toCharArray();
            for (int bit = 0; bit < separators.size(); bit++) {
                spelling[separators.get(bit)] = (mix & 1 << bit) != 0 ? '_' : '-';
            }
            String candidate = new String(spelling);
            if (!candidate.equals(name)) {
                spellings.add(candidate.toLowerCase(Locale.ROOT));
            }
        }
        return List.copyOf(spellings);
    }

    private static String folded(String name) {
        return name.replace('_', '-').toLowerCase(Locale.ROOT);
    }
}
