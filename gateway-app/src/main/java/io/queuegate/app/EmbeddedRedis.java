package io.queuegate.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

import redis.embedded.RedisServer;

/**
 * An in-process Redis for the demo ({@code queuegate.redis.embedded=true}), on a free loopback
 * port, keeping nothing on disk. It is exposed as the Redis connection details, so Spring's
 * Redis client connects to it and only after it has started.
 */
public final class EmbeddedRedis implements DataRedisConnectionDetails, DisposableBean {

    private static final Log log = LogFactory.getLog(EmbeddedRedis.class);
    private static final String HOST = "127.0.0.1";

    private final int port;
    private final RedisServer server;

    public EmbeddedRedis() {
        this.port = freePort();
        try {
            this.server = RedisServer.newRedisServer()
                    .bind(HOST)
                    .port(port)
                    .setting("save \"\"")
                    .setting("appendonly no")
                    .build();
            server.start();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not start the embedded Redis", ex);
        }
        log.info("Embedded Redis (demo only, nothing persisted) listening on " + HOST + ":" + port);
    }

    public int port() {
        return port;
    }

    @Override
    public Standalone getStandalone() {
        return Standalone.of(HOST, port);
    }

    @Override
    public void destroy() throws IOException {
        server.stop();
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("No free port for the embedded Redis", ex);
        }
    }
}
