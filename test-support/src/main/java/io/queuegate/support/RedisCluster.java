package io.queuegate.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
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
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;

import org.awaitility.Awaitility;

/**
 * A real three-master Redis Cluster on loopback for tests: three {@code redis-server} child
 * processes with {@code cluster-enabled yes}, given their slots and joined as {@code redis-cli
 * --cluster create} would (through the nodes' own commands, so no redis-cli is needed). No
 * replicas: the tests are about keys and scripts across slots, not about cluster failover.
 * Tests get a Lettuce cluster connection (routed by slot, like the gateway's) and plain
 * connections to single nodes, to see where keys really are.
 */
public final class RedisCluster implements AutoCloseable {


    private final Path dir;
    private final List<Integer> ports;
    private final List<Process> processes = new ArrayList<>();
    private final Map<Integer, RedisClient> nodeClients = new LinkedHashMap<>();
    private final Map<Integer, StatefulRedisConnection<String, String>> nodeConnections = new LinkedHashMap<>();
    private RedisClusterClient client;
    private StatefulRedisClusterConnection<String, String> connection;

    private RedisCluster(Path dir, List<Integer> ports) {
        this.dir = dir;
        this.ports = ports;
    }

    /** Starts three masters, creates the cluster and waits until every node says it is ok. */
    public static RedisCluster start() {
        Path dir;
        try {
            dir = Files.createTempDirectory("queuegate-cluster-");
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        List<Integer> ports = new ArrayList<>();
        while (ports.size() < 3) {
            int port = clusterPort();
            if (!ports.contains(port)) {
                ports.add(port);
            }
        }
        RedisCluster cluster = new RedisCluster(dir, ports);
        try {
            cluster.launch();
        }
        catch (RuntimeException | Error ex) {
            cluster.close();
            throw ex;
        }
        return cluster;
    }

    private void launch() {
        for (int port : ports) {
            processes.add(run(RedisProcess.binary(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--cluster-enabled", "yes", "--cluster-config-file", "nodes-" + port + ".conf",
                    "--cluster-node-timeout", "2000", "--save", "", "--appendonly", "no",
                    "--dir", dir.toString(), "--logfile", dir.resolve("redis-" + port + ".log").toString()));
        }
        for (int port : ports) {
            RedisClient nodeClient = RedisClient.create(RedisURI.create("127.0.0.1", port));
            nodeClients.put(port, nodeClient);
            nodeConnections.put(port, Awaitility.await("cluster node " + port + " accepts connections")
                    .atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).ignoreExceptions()
                    .until(nodeClient::connect, c -> true));
        }
        // What redis-cli --cluster create does for three masters, through the nodes' own commands,
        // so the bundled redis-server alone (no redis-cli) makes a cluster on a fresh machine.
        int[] firstSlot = { 0, 5461, 10923, 16384 };
        for (int i = 0; i < ports.size(); i++) {
            int[] slots = java.util.stream.IntStream.range(firstSlot[i], firstSlot[i + 1]).toArray();
            nodeConnections.get(ports.get(i)).sync().clusterAddSlots(slots);
        }
        RedisCommands<String, String> first = nodeConnections.get(ports.get(0)).sync();
        for (int port : ports.subList(1, ports.size())) {
            first.clusterMeet("127.0.0.1", port);
        }
        // The nodes learn of each other and agree on the slots a little later.
        Awaitility.await("every node reports cluster_state:ok").atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> nodeConnections.values().stream()
                        .allMatch(c -> c.sync().clusterInfo().contains("cluster_state:ok")));
        client = RedisClusterClient.create(ports.stream().map(port -> RedisURI.create("127.0.0.1", port)).toList());
        connection = client.connect();
    }

    /** The nodes as {@code spring.data.redis.cluster.nodes} wants them. */
    public String nodes() {
        return ports.stream().map(port -> "127.0.0.1:" + port).collect(Collectors.joining(","));
    }

    public List<Integer> ports() {
        return List.copyOf(ports);
    }

    /** Commands through the cluster client, each routed to the node that owns its key's slot. */
    public RedisAdvancedClusterCommands<String, String> commands() {
        return connection.sync();
    }

    /** Commands to one node only (for where keys live, and for node-local server settings). */
    public RedisCommands<String, String> node(int port) {
        return nodeConnections.get(port).sync();
    }

    /** The port of the master that serves {@code key}'s hash slot, as the cluster itself says. */
    public int portOfKey(String key) {
        int slot = SlotHash.getSlot(key);
        return connection.getPartitions().getPartitionBySlot(slot).getUri().getPort();
    }

    /** Empties every master (all three are masters: this cluster has no replicas). */
    public void flushAll() {
        nodeConnections.values().forEach(c -> c.sync().flushall());
    }

    /** Where each node's log file is, for a test that fails. */
    public Path dir() {
        return dir;
    }

    @Override
    public void close() {
        if (connection != null) {
            connection.close();
        }
        if (client != null) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
        nodeConnections.values().forEach(StatefulRedisConnection::close);
        nodeClients.values().forEach(c -> c.shutdown(Duration.ZERO, Duration.ofSeconds(1)));
        for (Process process : processes) {
            process.destroy();
        }
        for (Process process : processes) {
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private Process run(String... command) {
        try {
            return new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("could not run " + command[0], ex);
        }
    }

    /**
     * A free port whose cluster bus port (port + 10000) is free as well: every node listens on
     * both, and the ephemeral range goes up to where port + 10000 would not exist.
     */
    private static int clusterPort() {
        while (true) {
            int port = FreePorts.one();
            if (port + 10000 > 65535) {
                continue;
            }
            try (ServerSocket bus = new ServerSocket(port + 10000)) {
                return port;
            }
            catch (IOException busy) {
                // taken: try another
            }
        }
    }
}
