package io.queuegate.web;

import java.nio.charset.StandardCharsets;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;

import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

/** Writes an answer's body: a page with its Content-Security-Policy, or JSON. */
final class ResponseWriter {

    private static final String CONTENT_SECURITY_POLICY = "Content-Security-Policy";

    private static final MediaType HTML = new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8);

    private final JsonMapper json;
    private final WaitingPage page;

    ResponseWriter(JsonMapper json, WaitingPage page) {
        this.json = json;
        this.page = page;
    }

    Mono<Void> html(ServerHttpResponse response, String html) {
        response.getHeaders().set(CONTENT_SECURITY_POLICY, page.contentSecurityPolicy(html));
        return write(response, HTML, html.getBytes(StandardCharsets.UTF_8));
    }

    Mono<Void> json(ServerHttpResponse response, Object body) {
        return write(response, MediaType.APPLICATION_JSON, json.writeValueAsBytes(body));
    }

    private static Mono<Void> write(ServerHttpResponse response, MediaType type, byte[] bytes) {
        response.getHeaders().setContentType(type);
        response.getHeaders().setContentLength(bytes.length);
        DataBuffer buffer = response.bufferFactory().wrap(bytes);
        return response.writeWith(Mono.just(buffer));
    }
}
