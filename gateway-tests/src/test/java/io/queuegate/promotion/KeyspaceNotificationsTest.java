package io.queuegate.promotion;

import java.util.List;

import io.queuegate.support.RedisProcess;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/** The startup check of {@code notify-keyspace-events}, on real servers that allow and forbid CONFIG. */
class KeyspaceNotificationsTest {

    @Test
    void turnsOnExpiryEventsWhenTheServerHasNone() {
        try (RedisProcess redis = RedisProcess.start(List.of("notify-keyspace-events \"\""))) {
            assertThat(ensure(redis)).isTrue();
            assertThat(redis.commands().configGet("notify-keyspace-events").get("notify-keyspace-events"))
                    .contains("E").contains("x");
        }
    }

    @Test
    void keepsTheServersOtherFlags() {
        try (RedisProcess redis = RedisProcess.start(List.of("notify-keyspace-events Kg"))) {
            assertThat(ensure(redis)).isTrue();
            assertThat(redis.commands().configGet("notify-keyspace-events").get("notify-keyspace-events"))
                    .contains("K").contains("g").contains("E").contains("x");
        }
    }

    @Test
    void saysSoAndGoesOnWhenTheServerForbidsConfig() {
        try (RedisProcess redis = RedisProcess.start(List.of("rename-command CONFIG \"\""))) {
            assertThat(ensure(redis)).isFalse();
        }
    }

    @Test
    void readsTheFlagsLikeRedisDoes() {
        assertThat(KeyspaceNotifications.hasExpiryEvents("Ex")).isTrue();
        assertThat(KeyspaceNotifications.hasExpiryEvents("KEA")).isTrue();
        assertThat(KeyspaceNotifications.hasExpiryEvents("Kx")).isFalse();
        assertThat(KeyspaceNotifications.hasExpiryEvents("")).isFalse();
        assertThat(KeyspaceNotifications.withExpiryEvents("Kg")).isEqualTo("KgEx");
        assertThat(KeyspaceNotifications.withExpiryEvents("KA")).isEqualTo("KAE");
    }

    private static boolean ensure(RedisProcess redis) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", redis.port()));
        factory.afterPropertiesSet();
        factory.start();
        try {
            return new KeyspaceNotifications(factory).ensureExpiryEvents().block();
        }
        finally {
            factory.destroy();
        }
    }
}
