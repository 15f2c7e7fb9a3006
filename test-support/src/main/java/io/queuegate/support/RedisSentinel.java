package io.queuegate.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;

import org.awaitility.Awaitility;

/**
 * A real Redis Sentinel setup on loopback for tests: one master, one replica of it and three
 * sentinels (quorum 2) watching them as {@code mymaster}, all child processes. The master can be
 * killed outright, as a crashed host would be, and the sentinels then promote the replica.
 * Started {@link #startWithReplicationProxy() with a replication proxy}, the replica replicates
 * through a {@link TcpProxy} that can hold the master's stream back, so a test can kill the master
 * while the replica lags behind it by known writes.
 */
public final class RedisSentinel implements AutoCloseable {

    public static final String MASTER_NAME = "mymaster";

    private static final String SERVER = RedisProcess.binary();

    private final Path dir;
    private final boolean proxied;
    private final int[] serverPorts = FreePorts.of(2);
    private final int masterPort = serverPorts[0];
    private final int replicaPort = serverPorts[1];
    private final List<Integer> sentinelPorts = new ArrayList<>();
    private final Map<Integer, Process> servers = new LinkedHashMap<>();
    private final List<Process> sentinels = new ArrayList<>();
    // One client (one set of threads) for every connection the tests make; each answer within 1 s.
    private final RedisClient client = RedisClient.create();
    private final Map<Integer, StatefulRedisConnection<String, String>> nodes = new LinkedHashMap<>();
    private final Map<Integer, StatefulRedisSentinelConnection<String, String>> sentinelConnections = new LinkedHashMap<>();
    private TcpProxy replicationProxy;

    private RedisSentinel(Path dir, boolean proxied) {
        this.dir = dir;
        this.proxied = proxied;
        while (sentinelPorts.size() < 3) {
            int port = FreePorts.one();
            if (port != masterPort && port != replicaPort && !sentinelPorts.contains(port)) {
                sentinelPorts.add(port);
            }
        }
    }

    /** Starts everything and waits until all three sentinels know the master, its replica and each other. */
    public static RedisSentinel start() {
        return start(false);
    }

    /**
     * As {@link #start()}, with the replica replicating through a {@link TcpProxy} to the master
     * ({@code replicaof} names the proxy's port), so that {@link #pauseReplication()} can hold
     * the master's writes back from it. The sentinels still know the replica by its own port: the
     * master lists it by the port it announces, not by where its connection comes from.
     */
    public static RedisSentinel startWithReplicationProxy() {
        return start(true);
    }

    private static RedisSentinel start(boolean proxied) {
        Path dir;
        try {
            dir = Files.createTempDirectory("queuegate-sentinel-");
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        RedisSentinel setup = new RedisSentinel(dir, proxied);
        try {
            setup.launch();
        }
        catch (RuntimeException | Error ex) {
            setup.close();
            throw ex;
        }
        return setup;
    }

    private void launch() {
        if (proxied) {
            // The first sync starts at once instead of after the 5 s a master waits by default for
            // more replicas to share a diskless transfer: there is only one. (The default setup
            // keeps the server's default, so the tests written against it see what they always saw.)
            servers.put(masterPort, server(masterPort, "--repl-diskless-sync-delay", "0"));
            replicationProxy = TcpProxy.start(masterPort);
            // Sentinel "fixes" a replica that names another master address than the one it
            // monitors (+fix-slave-config, failover-timeout after it first saw it): it would point
            // the replica straight at the master, past the proxy. So this replica refuses
            // REPLICAOF/SLAVEOF except NO ONE, which is all a promotion needs.
            servers.put(replicaPort, server(replicaPort, "--replicaof", "127.0.0.1",
                    Integer.toString(replicationProxy.port()), "--user", "default", "on", "nopass", "~*", "&*", "+@all",
                    "-slaveof", "+slaveof|no", "-replicaof", "+replicaof|no"));
        }
        else {
            servers.put(masterPort, server(masterPort));
            servers.put(replicaPort, server(replicaPort, "--replicaof", "127.0.0.1", Integer.toString(masterPort)));
        }
        // A replica that has not finished its first sync cannot be promoted: wait for the link.
        Awaitility.await("the replica is in sync with the master").atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                .until(() -> node(replicaPort).info("replication").contains("master_link_status:up"));
        for (int port : sentinelPorts) {
            Path conf = dir.resolve("sentinel-" + port + ".conf");
            // Each sentinel rewrites its own file (what it learnt, its id), so each gets one.
            write(conf, String.join("\n",
                    "port " + port,
                    "bind 127.0.0.1",
                    "dir " + dir,
                    "logfile " + dir.resolve("sentinel-" + port + ".log"),
                    "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + masterPort + " 2",
                    "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                    "sentinel failover-timeout " + MASTER_NAME + " 5000",
                    ""));
            sentinels.add(start(List.of(SERVER, conf.toString(), "--sentinel")));
        }
        // Sentinels find each other and the replica through the master's hello channel, every
        // 2 s; a failover needs a quorum that knows one another.
        Awaitility.await("every sentinel sees the replica and the two other sentinels")
                .atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                .until(() -> sentinelPorts.stream().allMatch(port -> {
                    Map<String, String> master = sentinel(port).sync().master(MASTER_NAME);
                    return "2".equals(master.get("num-other-sentinels")) && "1".equals(master.get("num-slaves"));
                }));
    }

    /** {@code spring.data.redis.sentinel.nodes}. */
    public String sentinelNodes() {
        return sentinelPorts.stream().map(port -> "127.0.0.1:" + port).collect(Collectors.joining(","));
    }

    public int originalMasterPort() {
        return masterPort;
    }

    public int replicaPort() {
        return replicaPort;
    }

    /**
     * Holds back everything the master sends the replica from now on (see {@link TcpProxy#pause()}):
     * the master goes on taking writes, the replica stops at what it had received.
     */
    public void pauseReplication() {
        proxy().pause();
    }

    /** Lets the held replication stream through again, in order. */
    public void resumeReplication() {
        proxy().resume();
    }

    /** The port the replica replicates from: the proxy's. */
    public int replicationProxyPort() {
        return proxy().port();
    }

    private TcpProxy proxy() {
        if (replicationProxy == null) {
            throw new IllegalStateException("started without a replication proxy: use startWithReplicationProxy()");
        }
        return replicationProxy;
    }

    /** A plain connection's commands to the Redis server on {@code port} (master or replica). */
    public synchronized RedisCommands<String, String> node(int port) {
        return nodes.computeIfAbsent(port, p -> client.connect(uri(p))).sync();
    }

    /**
     * The master's port as the sentinels say it: the answer every sentinel that answers agrees
     * on, or -1 while they disagree (in the middle of a failover).
     */
    public int currentMasterPort() {
        List<Integer> answers = new ArrayList<>();
        for (int port : sentinelPorts) {
            try {
                SocketAddress address = sentinel(port).sync().getMasterAddrByName(MASTER_NAME);
                answers.add(((InetSocketAddress) address).getPort());
            }
            catch (RuntimeException unreachable) {
                // a sentinel that does not answer has no say
            }
        }
        return !answers.isEmpty() && answers.stream().distinct().count() == 1 ? answers.get(0) : -1;
    }

    /**
     * Kills the current master (as the sentinels name it) with SIGKILL: no shutdown, no last
     * save, like a host that died.
     *
     * @return the port it listened on
     */
    public int killMaster() {
        int port = currentMasterPort();
        Process master = servers.remove(port);
        if (master == null) {
            throw new IllegalStateException("the sentinels agree on no running master (" + port + ")");
        }
        master.destroyForcibly();
        try {
            master.waitFor(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return port;
    }

    private synchronized StatefulRedisSentinelConnection<String, String> sentinel(int port) {
        return sentinelConnections.computeIfAbsent(port, p -> client.connectSentinel(uri(p)));
    }

    private static RedisURI uri(int port) {
        return RedisURI.Builder.redis("127.0.0.1", port).withTimeout(Duration.ofSeconds(1)).build();
    }

    @Override
    public void close() {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        // Sentinels first, so none starts a failover while the servers go down.
        List<Process> all = new ArrayList<>(sentinels);
        all.addAll(servers.values());
        for (Process process : all) {
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        if (replicationProxy != null) {
            replicationProxy.close();
        }
    }

    private Process server(int port, String... extra) {
        Path data = dir.resolve("redis-" + port);
        try {
            Files.createDirectories(data);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        List<String> command = new ArrayList<>(List.of(SERVER, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", data.toString(),
                "--logfile", dir.resolve("redis-" + port + ".log").toString()));
        command.addAll(List.of(extra));
        Process process = start(command);
        Awaitility.await("Redis on port " + port + " accepts connections").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(50)).ignoreExceptions()
                .until(() -> "PONG".equals(node(port).ping()));
        return process;
    }

    private static Process start(List<String> command) {
        try {
            return new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("could not start " + command.get(0), ex);
        }
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
