package io.queuegate.store;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import io.lettuce.core.KillArgs;
import io.queuegate.support.RedisProcess;
import reactor.core.Disposable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One Redis subscription per pattern, whoever listens, and every listener back after the
 * subscription is lost, told that it was.
 */
class ChannelsTest {

    private static final String PATTERN = "qg:test:*";

    private static RedisProcess redis;
    private static LettuceConnectionFactory connections;
    private static Channels channels;

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", redis.port()));
        connections.afterPropertiesSet();
        connections.start();
        channels = new Channels(new ReactiveStringRedisTemplate(connections));
    }

    @AfterAll
    static void stop() {
        connections.destroy();
        redis.close();
    }

    @Test
    void listenersOfOnePatternShareOneSubscriptionThroughALostConnection() {
        List<String> first = new CopyOnWriteArrayList<>();
        List<String> second = new CopyOnWriteArrayList<>();
        Disposable a = channels.listen(PATTERN, (channel, message) -> first.add(channel + "=" + message));
        Disposable b = channels.listen(PATTERN, (channel, message) -> second.add(channel + "=" + message));
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> patternSubscribers() == 1);
            redis.commands().publish("qg:test:1", "hello");
            await().atMost(Duration.ofSeconds(10)).until(() -> first.contains("qg:test:1=hello")
                    && second.contains("qg:test:1=hello"));
            assertThat(patternSubscribers()).as("Redis clients subscribed to a pattern").isEqualTo(1);

            redis.commands().clientKill(KillArgs.Builder.typePubsub());

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                redis.commands().publish("qg:test:2", "again");
                assertThat(first).contains("qg:test:2=again");
                assertThat(second).contains("qg:test:2=again");
            });
            assertThat(patternSubscribers()).isEqualTo(1);
        }
        finally {
            a.dispose();
            b.dispose();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> patternSubscribers() == 0);
    }

    @Test
    void aListenerWhoseRedisIsDownIsToldAndListensOnceRedisIsBack() {
        List<String> heard = new CopyOnWriteArrayList<>();
        AtomicInteger lost = new AtomicInteger();
        redis.stop();
        Disposable listener = channels.listen("qg:later:*", (channel, message) -> heard.add(message),
                lost::incrementAndGet);
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> lost.get() >= 1);
            redis.restart();
            await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
                redis.commands().publish("qg:later:1", "back");
                assertThat(heard).contains("back");
            });
        }
        finally {
            listener.dispose();
        }
    }

    /** Clients of this Redis with at least one pattern subscription. */
    private static long patternSubscribers() {
        return redis.commands().clientList().lines()
                .filter(line -> line.matches(".*\\bpsub=[1-9].*"))
                .count();
    }
}
