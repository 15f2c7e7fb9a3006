package io.queuegate.store;

import java.util.List;

import io.queuegate.support.RedisProcess;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The machinery of the data-loss fault tests, proven on real servers: a killed server comes back
 * with what its disk kept, no more.
 */
class ReplicationLagTest {

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
}
