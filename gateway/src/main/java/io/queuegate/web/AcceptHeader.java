package io.queuegate.web;

import java.util.List;

import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;

/** What a client's {@code Accept} header asks for: a page, or JSON. */
final class AcceptHeader {

    private AcceptHeader() {
    }

    /**
     * True when the client ranks HTML above JSON; {@code *}{@code /*} alone (curl) means JSON, and
     * so does an {@code Accept} that does not parse: JSON is the answer every client can read, the
     * decision comes after the place is made (an exception here lost the answer, not the place),
     * and a client can send it with every request, so it is not logged either.
     */
    static boolean prefersHtml(ServerHttpRequest request) {
        List<MediaType> accepted;
        try {
            accepted = request.getHeaders().getAccept();
        }
        catch (IllegalArgumentException unparsable) {
            return false;
        }
        return quality(accepted, MediaType.TEXT_HTML) > quality(accepted, MediaType.APPLICATION_JSON);
    }

    private static double quality(List<MediaType> accepted, MediaType type) {
        double best = 0;
        for (MediaType candidate : accepted) {
            if (candidate.includes(type)) {
                double q = candidate.getQualityValue();
                // An exact match outranks a wildcard of the same quality.
                best = Math.max(best, candidate.isWildcardType() || candidate.isWildcardSubtype() ? q - 0.001 : q);
            }
        }
        return best;
    }
}
