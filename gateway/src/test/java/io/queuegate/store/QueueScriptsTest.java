package io.queuegate.store;

import java.util.List;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.support.Lines;
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
    private static final long IDLE = 3_600_000L;
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
        assertThat(join("alice", NOW, 2)).startsWith(1L, 0L, 1L, 1L);
        assertThat(commands.zscore(KEYS.active(), "alice")).isEqualTo((double) (NOW + TTL));
        assertThat(Lines.of(commands, PID).size()).isZero();
    }

    @Test
    void queuesInArrivalOrderOnceFull() {
        join("a", NOW, 1);
        assertThat(join("b", NOW, 1)).startsWith(0L, 1L, 0L, 1L);
        assertThat(join("c", NOW, 1)).startsWith(0L, 2L, 0L, 1L);
        assertThat(join("d", NOW, 1)).startsWith(0L, 3L, 0L, 1L);
        assertThat(Lines.of(commands, PID)).containsExactly("b", "c", "d");
    }

    @Test
    void keepsStrictOrderForJoinsInTheSameMillisecond() {
        join("first", NOW, 1);
        for (int i = 0; i < 50; i++) {
            join("u" + i, NOW, 1);
        }
        List<String> order = Lines.of(commands, PID);
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
        assertThat(join("b", NOW + 5, 1)).startsWith(0L, 1L, 0L, 0L);
        assertThat(Lines.of(commands, PID)).containsExactly("b", "c");
    }

    @Test
    void joiningAgainWhileActiveNeitherQueuesNorExtendsTheSession() {
        join("a", NOW, 1);
        assertThat(join("a", NOW + 10_000, 1)).startsWith(1L, 0L, 0L, 0L);
        assertThat(commands.zscore(KEYS.active(), "a")).isEqualTo((double) (NOW + TTL));
        assertThat(Lines.of(commands, PID).size()).isZero();
    }

    @Test
    void aNewcomerNeverOvertakesSomeoneAlreadyWaiting() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        // a's session expires; the next join promotes b first, then c waits
        assertThat(join("c", NOW + TTL, 1)).startsWith(0L, 1L, 1L, 1L);
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
        assertThat(Lines.of(commands, PID)).containsExactly("u4", "u5");
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
        assertThat(leave("a", NOW + 1)).containsExactly(1L, 1L, 0L);
        assertThat(commands.zrange(KEYS.active(), 0, -1)).containsExactly("b");
        assertThat(status("c", NOW + 1)).startsWith(0L, 1L);
    }

    @Test
    void leaveWhileWaitingGivesUpThePlaceInLine() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        join("c", NOW, 1);
        assertThat(leave("b", NOW)).containsExactly(1L, 0L, 0L);
        assertThat(status("c", NOW)).startsWith(0L, 1L);
        assertThat(leave("b", NOW)).containsExactly(0L, 0L, 0L);
    }

    @Test
    void statusReadsWithoutJoining() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        assertThat(status("a", NOW)).startsWith(1L, 0L);
        assertThat(status("b", NOW)).startsWith(0L, 1L);
        assertThat(status("z", NOW)).startsWith(-1L, 0L);
        assertThat(status("a", NOW + TTL)).startsWith(-1L, 0L);
        assertThat(Lines.of(commands, PID)).containsExactly("b");
    }

    @Test
    void everyJoinKeepsTheProductsKeysAliveForTheIdleTtlOnly() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        join("c", NOW, 1);
        leave("b", NOW);
        join("c", NOW, 1);
        List<String> keys = commands.keys("qg:{42}:*");
        // settings, active, seq, the places given up, a page of the line and c's ticket bucket
        assertThat(keys).contains(KEYS.settings(), KEYS.active(), KEYS.sequence(), KEYS.left(), "qg:{42}:line:0")
                .anyMatch(key -> key.startsWith("qg:{42}:tickets:"));
        for (String key : keys) {
            assertThat(commands.pttl(key)).as(key).isBetween(IDLE - 5_000, IDLE);
        }
    }

    @Test
    void pollsRenewTheProductsKeysAMinuteApartNotOnEveryCall() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        for (String key : KEYS.forScripts()) {
            commands.pexpire(key, 5_000);
        }
        join("b", NOW + 30_000, 1);
        assertThat(commands.pttl(KEYS.sequence())).as("renewed half a minute ago: left alone").isLessThanOrEqualTo(5_000);
        join("b", NOW + 60_000, 1);
        for (String key : KEYS.forScripts()) {
            assertThat(commands.pttl(key)).as(key).isBetween(IDLE - 5_000, IDLE);
        }
    }

    @Test
    void ranksStayExactWhenPeopleAheadLeave() {
        for (String user : List.of("a", "b", "c", "d", "e", "f")) {
            join(user, NOW, 1);
        }
        leave("c", NOW);
        leave("d", NOW);
        assertThat(status("e", NOW)).startsWith(0L, 2L);
        assertThat(status("f", NOW)).startsWith(0L, 3L);
        assertThat(snapshot(NOW).get(0)).as("waiting").isEqualTo(3L);
        leave("a", NOW);
        assertThat(commands.zrange(KEYS.active(), 0, -1)).containsExactly("b");
        assertThat(status("e", NOW)).startsWith(0L, 1L);
        leave("b", NOW);
        assertThat(commands.zrange(KEYS.active(), 0, -1)).as("c and d are passed over").containsExactly("e");
        assertThat(commands.zcard(KEYS.left())).as("places passed by the head are forgotten").isZero();
        assertThat(status("f", NOW)).startsWith(0L, 1L);
    }

    @Test
    void aUserWhoLeftAndCameBackStandsAtTheBack() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        join("c", NOW, 1);
        leave("b", NOW);
        assertThat(join("b", NOW, 1)).startsWith(0L, 2L, 0L, 1L);
        assertThat(Lines.of(commands, PID)).containsExactly("c", "b");
    }

    @Test
    void aLongRunOfPlacesGivenUpIsPassedOverAcrossCalls() {
        join("holder", NOW, 1);
        for (int i = 0; i < 1_200; i++) {
            join("gone" + i, NOW, 1);
        }
        join("next", NOW, 1);
        for (int i = 0; i < 1_200; i++) {
            leave("gone" + i, NOW);
        }
        assertThat(status("next", NOW)).startsWith(0L, 1L);
        commands.zadd(KEYS.active(), NOW, "holder");
        // One call passes over at most 501 places; the calls that follow go on from there.
        assertThat(promote(NOW + 1, "")).isZero();
        assertThat(promote(NOW + 1, "")).isZero();
        assertThat(promote(NOW + 1, "")).isEqualTo(1);
        assertThat(commands.zrange(KEYS.active(), 0, -1)).containsExactly("next");
    }

    @Test
    void aPlaceWhosePageExpiredIsPassedOverAndItsHolderToldOnceTheHeadIsBy() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        for (int i = 0; i < 200; i++) {
            join("u" + i, NOW, 1);
        }
        // b holds ticket 2, on page 0, which expired on its own; the bucket still names it.
        commands.del("qg:{42}:line:0");
        assertThat(status("b", NOW)).as("until the head comes by, the bucket is all there is").startsWith(0L, 1L);
        leave("a", NOW);
        assertThat(commands.zrange(KEYS.active(), 0, -1)).as("page 0 held tickets 0 to 127: u125 holds ticket 128")
                .containsExactly("u125");
        assertThat(status("b", NOW)).as("passed: the place is gone").startsWith(-1L, 0L);
        assertThat(join("b", NOW, 1).get(0)).isZero();
        assertThat(Lines.of(commands, PID)).last().isEqualTo("b");
    }

    @Test
    void theAdmissionRateIsAnExponentiallyWeightedAverageSharedInRedis() {
        // Two admissions per second for two minutes: the rate settles near 2/s.
        long now = NOW;
        for (int i = 0; i < 240; i++) {
            join("u" + i, now, 1_000_000);
            now += 500;
        }
        double rate = status("nobody", now).get(2) / 1_000_000.0;
        assertThat(rate).isBetween(1.9, 2.1);
        // A minute with no admissions: the rate decays by about e.
        double later = status("nobody", now + 60_000).get(2) / 1_000_000.0;
        assertThat(later).isBetween(rate / Math.E - 0.1, rate / Math.E + 0.1);
    }

    @Test
    void theRateIsUnknownForItsFirstSecondsThenHonestFromTheStart() {
        long now = NOW;
        for (int i = 0; i < 8; i++) {
            join("u" + i, now, 1_000_000);
            now += 1_000;
        }
        assertThat(status("nobody", NOW + 4_000).get(2)).as("under 5 s of history").isZero();
        // One admission a second for 8 s: corrected for the warm-up, not 8/60.
        assertThat(status("nobody", now).get(2) / 1_000_000.0).isBetween(0.85, 1.15);
    }

    @Test
    void everyAdmissionIsAnnouncedOnTheProductsChannel() {
        var pubsub = io.lettuce.core.RedisClient.create("redis://127.0.0.1:" + redis.port()).connectPubSub();
        List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
        pubsub.addListener(new io.lettuce.core.pubsub.RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                heard.add(channel + "=" + message);
            }
        });
        pubsub.sync().subscribe("qg:admitted:42");
        join("a", NOW, 1);
        join("b", NOW, 1);
        join("c", NOW, 1);
        leave("a", NOW);
        org.awaitility.Awaitility.await().untilAsserted(() ->
                assertThat(heard).containsExactly("qg:admitted:42=a", "qg:admitted:42=b"));
        pubsub.close();
    }

    @Test
    void anOperatorCanPauseResizeAndDrainAProduct() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        join("c", NOW, 1);
        assertThat(admin("pause", "")).isZero();
        leave("a", NOW);
        assertThat(commands.zcard(KEYS.active())).as("paused: nobody promoted").isZero();
        assertThat(admin("resume", "")).isEqualTo(1);
        assertThat(admin("max", "3")).isEqualTo(1);
        assertThat(commands.zrange(KEYS.active(), 0, -1)).containsExactlyInAnyOrder("b", "c");
        assertThat(admin("drain", "")).isZero();
        assertThat(join("d", NOW, 1)).as("draining: nobody new").startsWith(-2L);
        assertThat(join("b", NOW, 1)).as("the active finish").startsWith(1L);
        assertThat(admin("max", "")).isZero();
    }

    private long admin(String action, String value) {
        return commands.eval(scripts.admin().getScriptAsString(), ScriptOutputType.INTEGER,
                KEYS.forScripts().toArray(String[]::new), action, value, Long.toString(NOW));
    }

    @Test
    void joinStoresTheSettingsThatPromotionWithoutARequestUses() {
        join("a", NOW, 7);
        assertThat(commands.hgetall(KEYS.settings()))
                .containsEntry("max", "7").containsEntry("ttl", Long.toString(TTL)).containsEntry("strategy", "scheduler");
    }

    @Test
    void leaveOnPubSubAnnouncesTheFreedPlace() {
        join("a", NOW, 1, "pubsub");
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

    @Test
    void keyspaceProductsGetASlotKeyWithTheSessionTtlPerAdmittedUser() {
        join("a", NOW, 1, "keyspace");
        join("b", NOW, 1, "keyspace");
        assertThat(commands.get(KEYS.slot("a"))).isEqualTo("1");
        assertThat(commands.pttl(KEYS.slot("a"))).isBetween(TTL - 1_000, TTL);
        assertThat(commands.exists(KEYS.slot("b"))).isZero();
        // Leaving deletes the slot (no expiry event follows) and hands the place, and a slot, to b.
        leave("a", NOW);
        assertThat(commands.exists(KEYS.slot("a"))).isZero();
        assertThat(commands.exists(KEYS.slot("b"))).isOne();
    }

    @Test
    void anExpiryHeardByThreeInstancesFreesExactlyOnePlaceAndPromotesExactlyOneUser() {
        for (String user : List.of("a", "b", "c", "d", "e")) {
            join(user, NOW, 2, "keyspace");
        }
        // Redis expired a's slot; all three gateway instances receive the event and run the script.
        commands.del(KEYS.slot("a"));
        List<Long> results = List.of(expire("a", NOW + 1), expire("a", NOW + 1), expire("a", NOW + 1));
        assertThat(results).containsExactly(1L, -4L, -4L);
        assertThat(commands.zrange(KEYS.active(), 0, -1)).containsExactlyInAnyOrder("b", "c");
        assertThat(Lines.of(commands, PID)).containsExactly("d", "e");
    }

    @Test
    void aStaleExpiryNeverEndsTheUsersNewerSession() {
        join("a", NOW, 1, "keyspace");
        // a's old slot expired, a came back and holds a fresh slot before the old event is handled
        assertThat(expire("a", NOW + 1)).isEqualTo(-3);
        assertThat(commands.zrange(KEYS.active(), 0, -1)).containsExactly("a");
    }

    @Test
    void expiriesMissedByEveryListenerAreFoundByTheNextPromotionPass() {
        join("a", NOW, 1, "keyspace");
        join("b", NOW, 1, "keyspace");
        commands.del(KEYS.slot("a"));
        // nobody heard the event; the safety net's pass drops a by its expiry score
        assertThat(promote(NOW + TTL, "")).isEqualTo(1);
        assertThat(commands.zrange(KEYS.active(), 0, -1)).containsExactly("b");
        assertThat(expire("a", NOW + TTL)).isEqualTo(-4);
        assertThat(commands.zcard(KEYS.active())).isOne();
    }

    @Test
    void leaveOnAStreamProductAsksForAStreamEvent() {
        join("a", NOW, 1, "stream");
        assertThat(leave("a", NOW)).containsExactly(1L, -1L, 1L);
        assertThat(leave("a", NOW)).containsExactly(0L, -1L, 0L);
    }

    @Test
    void claimTakesOverEventsADeadConsumerReadButNeverAcknowledged() {
        String stream = QueueKeys.SLOT_EVENTS;
        commands.xgroupCreate(io.lettuce.core.XReadArgs.StreamOffset.from(stream, "0"), "g",
                io.lettuce.core.XGroupCreateArgs.Builder.mkstream());
        String id = commands.xadd(stream, java.util.Map.of("pid", "42"));
        commands.xreadgroup(io.lettuce.core.Consumer.from("g", "dead"),
                io.lettuce.core.XReadArgs.StreamOffset.lastConsumed(stream));
        List<String> claimed = commands.eval(scripts.claim().getScriptAsString(), ScriptOutputType.MULTI,
                new String[] { stream }, "g", "alive", "0", "10", "3600000");
        assertThat(claimed).containsExactly(id, "42");
        assertThat(commands.xpending(stream, "g").getConsumerMessageCount()).containsOnlyKeys("alive");
        // The dead consumer now holds nothing; once idle past the limit it is forgotten.
        commands.eval(scripts.claim().getScriptAsString(), ScriptOutputType.MULTI,
                new String[] { stream }, "g", "alive", "0", "10", "0");
        assertThat(commands.xinfoConsumers(stream, "g")).hasSize(1);
    }

    private List<Long> join(String uid, long now, int max) {
        return join(uid, now, max, "scheduler");
    }

    private List<Long> join(String uid, long now, int max, String strategy) {
        return commands.eval(scripts.join().getScriptAsString(), ScriptOutputType.MULTI,
                KEYS.forScripts().toArray(String[]::new), uid, Long.toString(now), Integer.toString(max),
                Long.toString(TTL), strategy, Long.toString(IDLE));
    }

    private long expire(String uid, long now) {
        return commands.eval(scripts.expire().getScriptAsString(), ScriptOutputType.INTEGER,
                KEYS.forScripts().toArray(String[]::new), uid, Long.toString(now));
    }

    private long promote(long now, String strategy) {
        return commands.eval(scripts.promote().getScriptAsString(), ScriptOutputType.INTEGER,
                KEYS.forScripts().toArray(String[]::new), Long.toString(now), strategy);
    }

    private List<Long> leave(String uid, long now) {
        return commands.eval(scripts.leave().getScriptAsString(), ScriptOutputType.MULTI,
                KEYS.forScripts().toArray(String[]::new), uid, Long.toString(now), KEYS.slotAvailableChannel());
    }

    private List<Long> snapshot(long now) {
        return commands.eval(scripts.snapshot().getScriptAsString(), ScriptOutputType.MULTI,
                KEYS.forScripts().toArray(String[]::new), Long.toString(now));
    }

    private List<Long> status(String uid, long now) {
        return commands.eval(scripts.status().getScriptAsString(), ScriptOutputType.MULTI,
                KEYS.forScripts().toArray(String[]::new), uid, Long.toString(now));
    }
}
