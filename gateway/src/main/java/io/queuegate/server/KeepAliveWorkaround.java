package io.queuegate.server;

import org.springframework.boot.reactor.netty.NettyServerCustomizer;

import reactor.netty.http.server.HttpServer;

/**
 * Reactor Netty up to 1.3.7 stops reading a kept-alive connection when a request arrives before
 * the previous response's operations have terminated and is then answered at once
 * (reactor/reactor-netty#4361): the next request on that connection is never read, and nothing
 * times it out. In a waiting room that is an answer from Redis (sent from a Lettuce thread)
 * followed by one without Redis (the join limiter's 429, a refused id). Reactor Netty's
 * {@code reactor.netty.http.server.lastFlushWhenNoRead} ends the previous operations when the
 * next request arrives instead of parking it. It is a JVM-wide system property that Reactor Netty
 * reads once, when the server first accepts a connection, so it is set here, as the server is
 * built and before it starts; an explicit setting wins. Being JVM-wide, it is installed only with
 * {@code queuegate.server.keep-alive-workaround: true}, which the runnable gateway sets and a
 * shop's own gateway may. Remove with Reactor Netty 1.3.8 or later (it needs a Netty newer than
 * Spring Boot 4.0.7 brings).
 */
public final class KeepAliveWorkaround implements NettyServerCustomizer {

    static final String PROPERTY = "reactor.netty.http.server.lastFlushWhenNoRead";

    @Override
    public HttpServer apply(HttpServer server) {
        if (System.getProperty(PROPERTY) == null) {
            System.setProperty(PROPERTY, "true");
        }
        return server;
    }
}
