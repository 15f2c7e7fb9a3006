package io.queuegate.web;

import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.support.RouterFunctionMapping;
import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Mono;

/**
 * Serves QueueGate's own endpoints under {@code /queue/} (status, live updates, leave, the client
 * scripts). A router function declared as a bean would join WebFlux's own router function mapping,
 * which is asked before the gateway's routes about every request, and wraps each in a server request
 * to try every function's predicates on it, for requests that can never be QueueGate's. This
 * mapping looks at the path first, so a request outside {@code /queue/} costs one prefix
 * comparison. (The saving is under a microsecond: {@code bench/run filter-costs} cannot tell it
 * from its rounds' spread.)
 */
public final class QueuePaths extends RouterFunctionMapping {

    /** Every path this mapping serves starts so (within the application's context path). */
    public static final String PREFIX = "/queue/";

    /**
     * @param routes QueueGate's endpoints, each under {@link #PREFIX}
     * @param codecs the application's codecs, for reading request bodies as the other mappings do
     */
    public QueuePaths(RouterFunction<?> routes, ServerCodecConfigurer codecs) {
        super(routes);
        setMessageReaders(codecs.getReaders());
        // Where WebFlux's own router function mapping sits: before annotated controllers and the
        // gateway's routes.
        setOrder(-1);
    }

    @Override
    protected Mono<?> getHandlerInternal(ServerWebExchange exchange) {
        if (!exchange.getRequest().getPath().pathWithinApplication().value().startsWith(PREFIX)) {
            return Mono.empty();
        }
        return super.getHandlerInternal(exchange);
    }
}
