package io.queuegate.routes;

import java.util.Optional;
import java.util.regex.Pattern;

import io.queuegate.config.QueuePolicy;

/** The route's product-id-pattern, compiled on first use (an invalid one fails where it is asked for). */
final class LazyPattern {

    private final String source;
    private final int flags;
    private volatile Optional<Pattern> compiled;

    LazyPattern(String source, int flags) {
        this.source = source;
        this.flags = flags;
    }

    Pattern get() {
        Optional<Pattern> current = compiled;
        if (current == null) {
            current = Optional.ofNullable(QueuePolicy.compile(source, flags));
            compiled = current;
        }
        return current.orElse(null);
    }
}
