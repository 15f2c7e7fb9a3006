package io.queuegate.support;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import org.awaitility.Awaitility;

import redis.embedded.core.ExecutableProvider;

/**
 * A real Redis server for tests, as a child process on a free port: the system's
 * {@code redis-server} when installed, else the binary bundled with embedded-redis, so tests
 * need only a JDK. It can be stopped, killed like a crashed host, restarted on the same port
 * (with its AOF file, when persistent, or with nothing at all) and paused like a hung host, for
 * fault tests. Tests talk to it with a plain Lettuce connection; nothing is mocked.
 */
public final class RedisProcess implements AutoCloseable {

    private final int port;
    private final Path dir;
    private final List<String> command;
    private final RedisClient client;
    private Process process;
    private StatefulRedisConnection<String, String> connection;
    private StatefulRedisConnection<byte[], byte[]> binary;

    private RedisProcess(int port, Path dir, List<String> command) {
        this.port = port;
        this.dir = dir;
        this.command = command;
        this.client = RedisClient.create(RedisURI.create("127.0.0.1", port));
        launch();
    }

    public static RedisProcess start() {
        return start(List.of());
    }

    /**
     * @param settings extra server settings, each {@code name value...}, for example
     *                 {@code rename-command CONFIG ""} ({@code ""} is the empty value)
     */
    public static RedisProcess start(List<String> settings) {
        Path dir = newDir();
        List<String> command = new ArrayList<>(List.of("--save", "", "--appendonly", "no", "--dir", dir.toString()));
        settings.forEach(setting -> addSetting(command, setting));
        return new RedisProcess(FreePorts.one(), dir, command);
    }

    /** A server with AOF on (fsync always), in its own folder, that keeps its data across restarts. */
    public static RedisProcess startPersistent() {
        Path dir = newDir();
        return new RedisProcess(FreePorts.one(), dir, new ArrayList<>(List.of("--save", "", "--appendonly", "yes",
                "--appendfsync", "always", "--dir", dir.toString())));
    }

    // Every server has a folder of its own, plain ones too: a restart then loads only what this
    // server wrote (never a dump.rdb left in the working directory), and restartEmpty() knows
    // what to delete.
    private static Path newDir() {
        try {
            Path dir = Files.createTempDirectory("queuegate-redis-");
            dir.toFile().deleteOnExit();
            return dir;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    public int port() {
        return port;
    }

    public RedisCommands<String, String> commands() {
        return connection.sync();
    }

    /** Commands on keys and values as bytes (DUMP and RESTORE a key as it is), on a connection of their own. */
    public io.lettuce.core.api.sync.RedisCommands<byte[], byte[]> binaryCommands() {
        if (binary == null) {
            binary = client.connect(io.lettuce.core.codec.ByteArrayCodec.INSTANCE);
        }
        return binary.sync();
    }

    public void flushAll() {
        commands().flushall();
    }

    /** Stops the server and waits until it is gone. */
    public void stop() {
        if (connection != null) {
            connection.close();
            connection = null;
        }
        if (binary != null) {
            binary.close();
            binary = null;
        }
        if (process != null) {
            process.destroy();
            waitFor(process);
            process = null;
        }
    }

    /**
     * Kills the server with SIGKILL and waits until it is gone, like a host that crashed: no
     * shutdown, no last save. What it had not written to disk is lost; with {@code appendfsync
     * always} (a persistent server) that is nothing.
     */
    public void kill() {
        if (process != null) {
            process.destroyForcibly();
            waitFor(process);
            if (process.isAlive()) {
                throw new IllegalStateException("Redis on port " + port + " survived SIGKILL");
            }
            process = null;
        }
        if (connection != null) {
            connection.close();
            connection = null;
        }
        if (binary != null) {
            binary.close();
            binary = null;
        }
    }

    /**
     * Starts the server again on the same port and folder, stopping it first if it runs. It comes
     * back with what it has on disk: a persistent server replays its AOF; a plain one, which writes
     * nothing (no AOF, no save points), comes back empty.
     */
    public void restart() {
        stop();
        launch();
    }

    /**
     * Starts the server again on the same port with its folder emptied first, like a host that
     * lost its disk along with the process: even a persistent server comes back with no keys.
     */
    public void restartEmpty() {
        stop();
        try (Stream<Path> files = Files.walk(dir)) {
            // Deepest first, so folders (the AOF's appendonlydir) are empty when their turn comes.
            files.filter(file -> !file.equals(dir)).sorted(Comparator.reverseOrder()).forEach(file -> {
                try {
                    Files.delete(file);
                }
                catch (IOException ex) {
                    throw new UncheckedIOException(ex);
                }
            });
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        launch();
    }

    /** Freezes the server (SIGSTOP): connections stay open and nothing answers, like a hung host. */
    public void pause() {
        signal("-STOP");
    }

    public void resume() {
        signal("-CONT");
    }

    @Override
    public void close() {
        if (process != null) {
            resume();
        }
        stop();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
    }

    private void launch() {
        List<String> full = new ArrayList<>(List.of(binary(), "--port", Integer.toString(port), "--bind", "127.0.0.1"));
        full.addAll(command);
        try {
            process = new ProcessBuilder(full).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("could not start a Redis server for the tests", ex);
        }
        connection = connectWithin(Duration.ofSeconds(10));
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid())).start();
            waitFor(kill);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
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

    private static void addSetting(List<String> command, String setting) {
        String[] parts = setting.split(" ");
        command.add("--" + parts[0]);
        for (int i = 1; i < parts.length; i++) {
            command.add(parts[i].equals("\"\"") ? "" : parts[i]);
        }
    }

    /**
     * The system's redis-server, unless {@code -Dqueuegate.test.redis=bundled} asks for the bundled
     * one; the bundled one where none is installed (a fresh machine). Clusters and sentinels run it too.
     */
    static String binary() {
        boolean bundledOnly = "bundled".equals(System.getProperty("queuegate.test.redis"));
        for (String dir : bundledOnly ? List.<String>of() : List.of("/usr/bin", "/usr/local/bin", "/opt/homebrew/bin")) {
            File candidate = new File(dir, "redis-server");
            if (candidate.canExecute()) {
                return candidate.getPath();
            }
        }
        try {
            return ExecutableProvider.newJarResourceProvider().get().getPath();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("no redis-server installed and none bundled for this platform", ex);
        }
    }

    private static void waitFor(Process process) {
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

}
