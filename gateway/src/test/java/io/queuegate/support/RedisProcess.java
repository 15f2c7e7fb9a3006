package io.queuegate.support;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.awaitility.Awaitility;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import redis.embedded.RedisServer;

/**
 * A real Redis server for one test class, on a free port: the system's {@code redis-server}
 * when installed, else the binary bundled with embedded-redis, so tests need only a JDK.
 * Tests talk to it with a plain Lettuce connection; nothing is mocked.
 */
public final class RedisProcess implements AutoCloseable {

    private final int port;
    private final Process process;
    private final RedisServer embedded;
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    private RedisProcess(int port, Process process, RedisServer embedded) {
        this.port = port;
        this.process = process;
        this.embedded = embedded;
        this.client = RedisClient.create(RedisURI.create("127.0.0.1", port));
        this.connection = connectWithin(Duration.ofSeconds(10));
    }

    public static RedisProcess start() {
        return start(List.of());
    }

    /**
     * @param settings extra server settings, each as {@code name value...} (for example
     *                 {@code rename-command CONFIG ""})
     */
    public static RedisProcess start(List<String> settings) {
        int port = freePort();
        String system = systemRedisServer();
        try {
            if (system != null) {
                List<String> command = new java.util.ArrayList<>(List.of(system, "--port", Integer.toString(port),
                        "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"));
                for (String setting : settings) {
                    String[] parts = setting.split(" ", 2);
                    command.add("--" + parts[0]);
                    if (parts.length > 1) {
                        for (String value : parts[1].split(" ")) {
                            command.add(value.equals("\"\"") ? "" : value);
                        }
                    }
                }
                Process process = new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start();
                return new RedisProcess(port, process, null);
            }
            var builder = RedisServer.newRedisServer().bind("127.0.0.1").port(port)
                    .setting("save \"\"").setting("appendonly no");
            settings.forEach(builder::setting);
            RedisServer server = builder.build();
            server.start();
            return new RedisProcess(port, null, server);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("could not start a Redis server for the tests", ex);
        }
    }

    public int port() {
        return port;
    }

    public RedisCommands<String, String> commands() {
        return connection.sync();
    }

    public void flushAll() {
        commands().flushall();
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        if (process != null) {
            process.destroy();
            // Callers rely on Redis being gone once close() returns (fault tests).
            try {
                process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        if (embedded != null) {
            try {
                embedded.stop();
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
    }

    private StatefulRedisConnection<String, String> connectWithin(Duration limit) {
        AtomicReference<StatefulRedisConnection<String, String>> connected = new AtomicReference<>();
        Awaitility.await("Redis on port " + port + " accepts connections")
                .atMost(limit)
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> {
                    connected.set(client.connect());
                    return true;
                });
        return connected.get();
    }

    private static String systemRedisServer() {
        for (String dir : List.of("/usr/bin", "/usr/local/bin", "/opt/homebrew/bin")) {
            File candidate = new File(dir, "redis-server");
            if (candidate.canExecute()) {
                return candidate.getPath();
            }
        }
        return null;
    }

    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
