package io.queuegate.web;

import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Flux;

/**
 * {@code queuegate.max-body-size} on protected routes. A declared {@code Content-Length} over
 * the limit is refused before anything else; a body of undeclared length (chunked) is counted as
 * it streams to the shop and cut off, with {@link TooLarge}, the moment it passes the limit. It
 * is never buffered to be measured.
 */
final class BodyLimit {

    /** Methods that carry no body unless they declare one. */
    private static final Set<HttpMethod> BODILESS = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.DELETE,
            HttpMethod.OPTIONS);

    private final long maxBytes;

    BodyLimit(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    long maxBytes() {
        return maxBytes;
    }

    /** Whether the request declares a body larger than the limit. */
    boolean declaredTooLarge(ServerHttpRequest request) {
        return request.getHeaders().getContentLength() > maxBytes;
    }

    /** The exchange, with its body counted as it streams when its length is not declared. */
    ServerWebExchange counted(ServerWebExchange exchange) {
        ServerHttpRequest request = exchange.getRequest();
        HttpHeaders headers = request.getHeaders();
        boolean undeclared = headers.getContentLength() < 0
                && (headers.containsHeader(HttpHeaders.TRANSFER_ENCODING) || !BODILESS.contains(request.getMethod()));
        if (!undeclared) {
            return exchange;
        }
        return exchange.mutate().request(new ServerHttpRequestDecorator(request) {
            @Override
            public Flux<DataBuffer> getBody() {
                AtomicLong seen = new AtomicLong();
                return super.getBody().handle((buffer, sink) -> {
                    if (seen.addAndGet(buffer.readableByteCount()) > maxBytes) {
                        DataBufferUtils.release(buffer);
                        sink.error(new TooLarge(maxBytes));
                    }
                    else {
                        sink.next(buffer);
                    }
                });
            }
        }).build();
    }

    /** A streamed body passed the limit. */
    static final class TooLarge extends RuntimeException {

        TooLarge(long maxBytes) {
            super("the request body is larger than " + maxBytes + " bytes", null, false, false);
        }
    }
}
