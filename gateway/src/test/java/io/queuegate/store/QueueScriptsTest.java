package io.queuegate.store;

import java.util.List;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.support.RedisProcess;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Lua scripts on a real Redis, with {@code now} passed in: deterministic, no sleeps.
 */
class QueueScriptsTest {

    private static final String PID = "42";
    private static final long NOW = 1_000_000L;
    private static final long TTL = 60_000L;
    private static final QueueKeys KEYS = QueueKeys.of(PID);

    private static RedisProcess redis;
    private static RedisCommands<String, String> commands;
    private static final QueueScripts scripts = new QueueScripts();

    @BeforeAll
    static void startRedis() {
        redis = RedisProcess.start();
        commands = redis.commands();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @BeforeEach
    void emptyRedis() {
        redis.flushAll();
    }

    @Test
    void admitsAtOnceWhileAPlaceIsFreeAndNobodyWaits() {
        assertThat(join("alice", NOW, 2)).containsExactly(1L, 0L, 1L, 1L);
        assertThat(commands.zscore(KEYS.active(), "alice")).isEqualTo((double) (NOW + TTL));
        assertThat(commands.zcard(KEYS.waiting())).isZero();
    }

    @Test
    void queuesInArrivalOrderOnceFull() {
        join("a", NOW, 1);
        assertThat(join("b", NOW, 1)).containsExactly(0L, 1L, 0L, 1L);
        assertThat(join("c", NOW, 1)).containsExactly(0L, 2L, 0L, 1L);
        assertThat(join("d", NOW, 1)).containsExactly(0L, 3L, 0L, 1L);
        assertThat(commands.zrange(KEYS.waiting(), 0, -1)).containsExactly("b", "c", "d");
    }

    @Test
    void keepsStrictOrderForJoinsInTheSameMillisecond() {
        join("first", NOW, 1);
        for (int i = 0; i < 50; i++) {
            join("u" + i, NOW, 1);
        }
        List<String> order = commands.zrange(KEYS.waiting(), 0, -1);
        assertThat(order).hasSize(50);
        for (int i = 0; i < 50; i++) {
            assertThat(order.get(i)).isEqualTo("u" + i);
        }
    }

    @Test
    void joiningAgainKeepsTheFirstPlace() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        join("c", NOW, 1);
        assertThat(join("b", NOW + 5, 1)).containsExactly(0L, 1L, 0L, 0L);
        assertThat(commands.zrange(KEYS.waiting(), 0, -1)).containsExactly("b", "c");
    }

    @Test
    void joiningAgainWhileActiveNeitherQueuesNorExtendsTheSession() {
        join("a", NOW, 1);
        assertThat(join("a", NOW + 10_000, 1)).containsExactly(1L, 0L, 0L, 0L);
        assertThat(commands.zscore(KEYS.active(), "a")).isEqualTo((double) (NOW + TTL));
        assertThat(commands.zcard(KEYS.waiting())).isZero();
    }

    @Test
    void aNewcomerNeverOvertakesSomeoneAlreadyWaiting() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        // a's session expires; the next join promotes b first, then c waits
        assertThat(join("c", NOW + TTL, 1)).containsExactly(0L, 1L, 1L, 1L);
        assertThat(commands.zrange(KEYS.active(), 0, -1)).containsExactly("b");
    }

    @Test
    void promoteNeverExceedsMaxActive() {
        for (int i = 0; i < 10; i++) {
            join("u" + i, NOW, 3);
        }
        assertThat(commands.zcard(KEYS.active())).isEqualTo(3);
        assertThat(promote(NOW, "")).isZero();
        assertThat(promote(NOW + 1, "")).isZero();
        assertThat(commands.zcard(KEYS.active())).isEqualTo(3);
        assertThat(commands.zrange(KEYS.active(), 0, -1)).containsExactlyInAnyOrder("u0", "u1", "u2");
    }

    @Test
    void promoteDropsExpiredSessionsAndFillsTheirPlacesInOrder() {
        for (int i = 0; i < 6; i++) {
            join("u" + i, NOW, 2);
        }
        assertThat(promote(NOW + TTL, "")).isEqualTo(2);
        assertThat(commands.zrange(KEYS.active(), 0, -1)).containsExactly("u2", "u3");
        assertThat(commands.zrange(KEYS.waiting(), 0, -1)).containsExactly("u4", "u5");
    }

    @Test
    void promoteSaysWhenNobodyWaitsSoTheProductCanBeForgotten() {
        join("a", NOW, 2);
        assertThat(promote(NOW, "")).isEqualTo(-1);
        assertThat(promote(NOW, "pubsub")).isEqualTo(-2);
    }

    @Test
    void promoteOfAnUnknownProductReportsNothingWaiting() {
        assertThat(promote(NOW, "")).isEqualTo(-1);
    }

    @Test
    void promoteSkipsProductsOfAnotherStrategy() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        commands.zadd(KEYS.active(), NOW - 1, "a");
        assertThat(promote(NOW, "pubsub")).isEqualTo(-2);
        assertThat(promote(NOW, "scheduler")).isEqualTo(1);
    }

    @Test
    void leaveFreesThePlaceAndPromotesTheNextAtOnce() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        join("c", NOW, 1);
        assertThat(leave("a", NOW + 1)).containsExactly(1L, 1L);
        assertThat(commands.zrange(KEYS.active(), 0, -1)).containsExactly("b");
        assertThat(status("c", NOW + 1)).containsExactly(0L, 1L);
    }

    @Test
    void leaveWhileWaitingGivesUpThePlaceInLine() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        join("c", NOW, 1);
        assertThat(leave("b", NOW)).containsExactly(1L, 0L);
        assertThat(status("c", NOW)).containsExactly(0L, 1L);
        assertThat(leave("b", NOW)).containsExactly(0L, 0L);
    }

    @Test
    void statusReadsWithoutJoining() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        assertThat(status("a", NOW)).containsExactly(1L, 0L);
        assertThat(status("b", NOW)).containsExactly(0L, 1L);
        assertThat(status("z", NOW)).containsExactly(-1L, 0L);
        assertThat(status("a", NOW + TTL)).containsExactly(-1L, 0L);
        assertThat(commands.zrange(KEYS.waiting(), 0, -1)).containsExactly("b");
    }

    @Test
    void joinStoresTheSettingsThatPromotionWithoutARequestUses() {
        join("a", NOW, 7);
        assertThat(commands.hgetall(KEYS.settings()))
                .containsEntry("max", "7").containsEntry("ttl", Long.toString(TTL)).containsEntry("strategy", "scheduler");
    }

    @Test
    void leaveOnPubSubAnnouncesTheFreedPlace() {
        commands.eval(scripts.join().getScriptAsString(), ScriptOutputType.MULTI,
                KEYS.forJoin().toArray(String[]::new), "a", Long.toString(NOW), "1", Long.toString(TTL), "pubsub");
        var pubsub = io.lettuce.core.RedisClient.create("redis://127.0.0.1:" + redis.port()).connectPubSub();
        List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
        pubsub.addListener(new io.lettuce.core.pubsub.RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                heard.add(channel + "=" + message);
            }
        });
        pubsub.sync().subscribe(KEYS.slotAvailableChannel());
        leave("a", NOW);
        org.awaitility.Awaitility.await().untilAsserted(() -> assertThat(heard).containsExactly("qg:slot-available:42=a"));
        pubsub.close();
    }

    private List<Long> join(String uid, long now, int max) {
        return commands.eval(scripts.join().getScriptAsString(), ScriptOutputType.MULTI,
                KEYS.forJoin().toArray(String[]::new), uid, Long.toString(now), Integer.toString(max),
                Long.toString(TTL), "scheduler");
    }

    private long promote(long now, String strategy) {
        return commands.eval(scripts.promote().getScriptAsString(), ScriptOutputType.INTEGER,
                KEYS.forPromoteAndLeave().toArray(String[]::new), Long.toString(now), strategy);
    }

    private List<Long> leave(String uid, long now) {
        return commands.eval(scripts.leave().getScriptAsString(), ScriptOutputType.MULTI,
                KEYS.forPromoteAndLeave().toArray(String[]::new), uid, Long.toString(now), KEYS.slotAvailableChannel());
    }

    private List<Long> status(String uid, long now) {
        return commands.eval(scripts.status().getScriptAsString(), ScriptOutputType.MULTI,
                KEYS.forStatus().toArray(String[]::new), uid, Long.toString(now));
    }
}
