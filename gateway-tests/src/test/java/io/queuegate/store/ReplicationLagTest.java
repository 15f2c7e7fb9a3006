package io.queuegate.store;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.queuegate.support.RedisProcess;
import io.queuegate.support.RedisSentinel;
import io.queuegate.support.TcpProxy;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The machinery of the data-loss fault tests, proven on real servers: a replica held behind by a
 * paused replication link is promoted without the writes it never got, a killed server comes back
 * with what its disk kept, no more, and the proxy that holds the link back loses nothing otherwise.
 */
class ReplicationLagTest {

    private static final Pattern OFFSET = Pattern.compile("master_repl_offset:(\\d+)");

    @Test
    void aReplicaPromotedWhileItsLinkIsPausedLacksTheWritesHeldBack() {
        try (RedisSentinel setup = RedisSentinel.startWithReplicationProxy()) {
            int masterPort = setup.originalMasterPort();
            RedisCommands<String, String> master = setup.node(masterPort);
            RedisCommands<String, String> replica = setup.node(setup.replicaPort());
            // The replica's stream comes through the proxy (Sentinel did not point it elsewhere).
            assertThat(replica.info("replication")).contains("master_port:" + setup.replicationProxyPort());

            master.set("A", "before the pause");
            Awaitility.await("A reaches the replica").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                    .until(() -> "before the pause".equals(replica.get("A")));

            setup.pauseReplication();
            master.set("B", "during the pause");
            long offsetWithB = offset(master);
            // Held, not merely slow: for a good while the replica neither has B nor reaches the offset.
            Awaitility.await("the replica stays behind the master").during(Duration.ofMillis(1500))
                    .atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(100))
                    .until(() -> offset(replica) < offsetWithB && replica.exists("B") == 0);
            assertThat(offset(master)).as("the master's offset").isGreaterThanOrEqualTo(offsetWithB);

            assertThat(setup.killMaster()).isEqualTo(masterPort);
            Awaitility.await("the sentinels agree on the replica as master").atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> setup.currentMasterPort() == setup.replicaPort());
            // The promotion kills the replica's client connections; Lettuce reconnects.
            Awaitility.await("the promoted replica answers as master").atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                    .until(() -> replica.info("replication").contains("role:master"));
            assertThat(replica.get("A")).isEqualTo("before the pause");
            assertThat(replica.exists("B")).as("B, written during the pause").isZero();
        }
    }

    @Test
    void aKilledServerComesBackWithWhatItsDiskKept() {
        try (RedisProcess plain = RedisProcess.start();
                RedisProcess saving = RedisProcess.start(List.of("save 3600 1"));
                RedisProcess persistent = RedisProcess.startPersistent()) {
            for (RedisProcess redis : List.of(plain, saving, persistent)) {
                redis.commands().set("k", "v");
            }
            for (RedisProcess redis : List.of(plain, saving, persistent)) {
                int port = redis.port();
                redis.kill();
                redis.restart();
                assertThat(redis.port()).isEqualTo(port);
            }
            assertThat(plain.commands().dbsize()).as("a plain server").isZero();
            // A SIGTERM would have saved on shutdown (a save point is set); SIGKILL gives no chance to.
            assertThat(saving.commands().dbsize()).as("a server with save points, killed").isZero();
            saving.commands().set("k", "v");
            saving.restart();
            assertThat(saving.commands().get("k")).as("the same server, stopped").isEqualTo("v");
            assertThat(persistent.commands().get("k")).as("a server with AOF").isEqualTo("v");

            persistent.kill();
            persistent.restartEmpty();
            assertThat(persistent.commands().dbsize()).as("a server with AOF that lost its disk").isZero();
        }
    }

    @Test
    void theProxyPassesEveryByteBothWaysAndHoldsOnlyTheTargetsWhilePaused() throws Exception {
        RedisClient client = RedisClient.create();
        try (RedisProcess redis = RedisProcess.start(); TcpProxy proxy = TcpProxy.start(redis.port())) {
            RedisURI viaProxy = RedisURI.create("127.0.0.1", proxy.port());
            List<StatefulRedisConnection<byte[], byte[]>> connections = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                connections.add(client.connect(ByteArrayCodec.INSTANCE, viaProxy));
            }
            // Every byte value, a megabyte per connection, all four at once: out and back intact.
            Random random = new Random(42);
            List<byte[]> values = new ArrayList<>();
            List<RedisFuture<byte[]>> echoes = new ArrayList<>();
            for (int i = 0; i < connections.size(); i++) {
                byte[] value = new byte[1 << 20];
                random.nextBytes(value);
                values.add(value);
                connections.get(i).async().set(key(i), value);
                echoes.add(connections.get(i).async().get(key(i)));
            }
            for (int i = 0; i < connections.size(); i++) {
                assertThat(echoes.get(i).get(10, TimeUnit.SECONDS)).as("value " + i).isEqualTo(values.get(i));
            }
            // Many pipelined answers come back in order.
            List<RedisFuture<Long>> counts = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                counts.add(connections.get(0).async().incr(key(9)));
            }
            for (int i = 0; i < counts.size(); i++) {
                assertThat(counts.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(i + 1L);
            }

            proxy.pause();
            RedisFuture<String> held = connections.get(1).async().set(key(8), new byte[] {1});
            // The command reaches the server; only its answer waits in the proxy.
            Awaitility.await("the write reaches the server").atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(50)).until(() -> redis.commands().exists("k8") == 1);
            Awaitility.await("the answer is held").during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1))
                    .until(() -> !held.isDone());
            proxy.resume();
            assertThat(held.get(5, TimeUnit.SECONDS)).isEqualTo("OK");
            connections.forEach(StatefulRedisConnection::close);
        }
        finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    private static byte[] key(int i) {
        return ("k" + i).getBytes(StandardCharsets.US_ASCII);
    }

    private static long offset(RedisCommands<String, String> node) {
        Matcher matcher = OFFSET.matcher(node.info("replication"));
        assertThat(matcher.find()).as("master_repl_offset in INFO replication").isTrue();
        return Long.parseLong(matcher.group(1));
    }
}
