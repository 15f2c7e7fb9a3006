package io.queuegate.store;

import java.time.Duration;
import java.util.List;

import io.queuegate.room.AdminAction;
import io.queuegate.room.ExpiryOutcome;
import io.queuegate.room.PlaceStatus;
import io.queuegate.room.Placement.State;
import io.queuegate.room.PromotionOutcome;
import io.queuegate.store.script.StreamTakeoverScript;
import io.queuegate.store.script.ExpireScript;
import io.queuegate.store.script.JoinScript;
import io.queuegate.store.script.LeaveScript;
import io.queuegate.store.script.PromoteScript;
import io.queuegate.support.Lines;
import io.queuegate.support.ScriptRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Lua scripts on a real Redis, through their typed adapters, with {@code now} passed in:
 * deterministic, no sleeps.
 */
class QueueScriptsTest {

    private static final String PID = "42";
    private static final long NOW = 1_000_000L;
    private static final long TTL = 60_000L;
    private static final long IDLE = 3_600_000L;
    private static final QueueKeys KEYS = QueueKeys.of(PID);

    @RegisterExtension
    static final ScriptRedis redis = new ScriptRedis();

    @Test
    void admitsAtOnceWhileAPlaceIsFreeAndNobodyWaits() {
        assertThat(joined(join("alice", NOW, 2))).isEqualTo(new Joined(State.ACTIVE, 0L, 1L, true));
        assertThat(redis.commands().zscore(KEYS.active(), "alice")).isEqualTo((double) (NOW + TTL));
        assertThat(Lines.of(redis.commands(), PID).size()).isZero();
    }

    @Test
    void queuesInArrivalOrderOnceFull() {
        join("a", NOW, 1);
        assertThat(joined(join("b", NOW, 1))).isEqualTo(new Joined(State.WAITING, 1L, 0L, true));
        assertThat(joined(join("c", NOW, 1))).isEqualTo(new Joined(State.WAITING, 2L, 0L, true));
        assertThat(joined(join("d", NOW, 1))).isEqualTo(new Joined(State.WAITING, 3L, 0L, true));
        assertThat(Lines.of(redis.commands(), PID)).containsExactly("b", "c", "d");
    }

    @Test
    void keepsStrictOrderForJoinsInTheSameMillisecond() {
        join("first", NOW, 1);
        for (int i = 0; i < 50; i++) {
            join("u" + i, NOW, 1);
        }
        List<String> order = Lines.of(redis.commands(), PID);
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
        assertThat(joined(join("b", NOW + 5, 1))).isEqualTo(new Joined(State.WAITING, 1L, 0L, false));
        assertThat(Lines.of(redis.commands(), PID)).containsExactly("b", "c");
    }

    @Test
    void joiningAgainWhileActiveNeitherQueuesNorExtendsTheSession() {
        join("a", NOW, 1);
        assertThat(joined(join("a", NOW + 10_000, 1))).isEqualTo(new Joined(State.ACTIVE, 0L, 0L, false));
        assertThat(redis.commands().zscore(KEYS.active(), "a")).isEqualTo((double) (NOW + TTL));
        assertThat(Lines.of(redis.commands(), PID).size()).isZero();
    }

    @Test
    void aNewcomerNeverOvertakesSomeoneAlreadyWaiting() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        // a's session expires; the next join promotes b first, then c waits
        assertThat(joined(join("c", NOW + TTL, 1))).isEqualTo(new Joined(State.WAITING, 1L, 1L, true));
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).containsExactly("b");
    }

    @Test
    void promoteNeverExceedsMaxActive() {
        for (int i = 0; i < 10; i++) {
            join("u" + i, NOW, 3);
        }
        assertThat(redis.commands().zcard(KEYS.active())).isEqualTo(3);
        assertThat(promote(NOW, "")).isEqualTo(new PromoteScript.Result(PromotionOutcome.FULL, 0));
        assertThat(promote(NOW + 1, "")).isEqualTo(new PromoteScript.Result(PromotionOutcome.FULL, 0));
        assertThat(redis.commands().zcard(KEYS.active())).isEqualTo(3);
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).containsExactlyInAnyOrder("u0", "u1", "u2");
    }

    @Test
    void promoteDropsExpiredSessionsAndFillsTheirPlacesInOrder() {
        for (int i = 0; i < 6; i++) {
            join("u" + i, NOW, 2);
        }
        assertThat(promote(NOW + TTL, "")).isEqualTo(new PromoteScript.Result(PromotionOutcome.MOVED, 2));
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).containsExactly("u2", "u3");
        assertThat(Lines.of(redis.commands(), PID)).containsExactly("u4", "u5");
    }

    @Test
    void promoteSaysWhenNobodyWaitsSoTheProductCanBeForgotten() {
        join("a", NOW, 2);
        assertThat(promote(NOW, "")).isEqualTo(new PromoteScript.Result(PromotionOutcome.EMPTY, 0));
        assertThat(promote(NOW, "pubsub")).isEqualTo(new PromoteScript.Result(PromotionOutcome.SKIPPED, 0));
    }

    @Test
    void promoteOfAnUnknownProductReportsNothingWaiting() {
        assertThat(promote(NOW, "")).isEqualTo(new PromoteScript.Result(PromotionOutcome.EMPTY, 0));
    }

    @Test
    void promoteSkipsProductsOfAnotherStrategy() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        redis.commands().zadd(KEYS.active(), NOW - 1, "a");
        assertThat(promote(NOW, "pubsub")).isEqualTo(new PromoteScript.Result(PromotionOutcome.SKIPPED, 0));
        assertThat(promote(NOW, "scheduler")).isEqualTo(new PromoteScript.Result(PromotionOutcome.MOVED, 1));
    }

    @Test
    void leaveFreesThePlaceAndPromotesTheNextAtOnce() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        join("c", NOW, 1);
        assertThat(leave("a", NOW + 1)).isEqualTo(new LeaveScript.Result(true, 1, false));
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).containsExactly("b");
        assertThat(placed(status("c", NOW + 1))).isEqualTo(new Placed(State.WAITING, 1L));
    }

    @Test
    void leaveWhileWaitingGivesUpThePlaceInLine() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        join("c", NOW, 1);
        assertThat(leave("b", NOW)).isEqualTo(new LeaveScript.Result(true, 0, false));
        assertThat(placed(status("c", NOW))).isEqualTo(new Placed(State.WAITING, 1L));
        assertThat(leave("b", NOW)).isEqualTo(new LeaveScript.Result(false, 0, false));
    }

    @Test
    void statusReadsWithoutJoining() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        assertThat(placed(status("a", NOW))).isEqualTo(new Placed(State.ACTIVE, 0L));
        assertThat(placed(status("b", NOW))).isEqualTo(new Placed(State.WAITING, 1L));
        assertThat(placed(status("z", NOW))).isEqualTo(new Placed(State.NOT_FOUND, 0L));
        assertThat(placed(status("a", NOW + TTL))).isEqualTo(new Placed(State.NOT_FOUND, 0L));
        assertThat(Lines.of(redis.commands(), PID)).containsExactly("b");
    }

    @Test
    void everyJoinKeepsTheProductsKeysAliveForTheIdleTtlOnly() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        join("c", NOW, 1);
        leave("b", NOW);
        join("c", NOW, 1);
        List<String> keys = redis.commands().keys("qg:{42}:*");
        // settings, active, seq, the places given up, a page of the line and c's ticket bucket
        assertThat(keys).contains(KEYS.settings(), KEYS.active(), KEYS.sequence(), KEYS.left(), "qg:{42}:line:0")
                .anyMatch(key -> key.startsWith("qg:{42}:tickets:"));
        for (String key : keys) {
            assertThat(redis.commands().pttl(key)).as(key).isBetween(IDLE - 5_000, IDLE);
        }
    }

    @Test
    void pollsRenewTheProductsKeysAMinuteApartNotOnEveryCall() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        // Someone still waits at the end (a's session ends and b is admitted): the keys live the idle ttl.
        join("c", NOW, 1);
        for (String key : KEYS.forScripts()) {
            redis.commands().pexpire(key, 5_000);
        }
        join("b", NOW + 30_000, 1);
        assertThat(redis.commands().pttl(KEYS.sequence())).as("renewed half a minute ago: left alone").isLessThanOrEqualTo(5_000);
        join("b", NOW + 60_000, 1);
        for (String key : KEYS.forScripts()) {
            assertThat(redis.commands().pttl(key)).as(key).isBetween(IDLE - 5_000, IDLE);
        }
    }

    @Test
    void ranksStayExactWhenPeopleAheadLeave() {
        for (String user : List.of("a", "b", "c", "d", "e", "f")) {
            join(user, NOW, 1);
        }
        leave("c", NOW);
        leave("d", NOW);
        assertThat(placed(status("e", NOW))).isEqualTo(new Placed(State.WAITING, 2L));
        assertThat(placed(status("f", NOW))).isEqualTo(new Placed(State.WAITING, 3L));
        assertThat(snapshot(NOW).waiting()).as("waiting").isEqualTo(3L);
        leave("a", NOW);
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).containsExactly("b");
        assertThat(placed(status("e", NOW))).isEqualTo(new Placed(State.WAITING, 1L));
        leave("b", NOW);
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).as("c and d are passed over").containsExactly("e");
        assertThat(redis.commands().zcard(KEYS.left())).as("places passed by the head are forgotten").isZero();
        assertThat(placed(status("f", NOW))).isEqualTo(new Placed(State.WAITING, 1L));
    }

    @Test
    void aUserWhoLeftAndCameBackStandsAtTheBack() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        join("c", NOW, 1);
        leave("b", NOW);
        assertThat(joined(join("b", NOW, 1))).isEqualTo(new Joined(State.WAITING, 2L, 0L, true));
        assertThat(Lines.of(redis.commands(), PID)).containsExactly("c", "b");
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
        assertThat(placed(status("next", NOW))).isEqualTo(new Placed(State.WAITING, 1L));
        redis.commands().zadd(KEYS.active(), NOW, "holder");
        // One call passes over at most 501 places; the calls that follow go on from there.
        assertThat(promote(NOW + 1, "")).isEqualTo(new PromoteScript.Result(PromotionOutcome.FULL, 0));
        assertThat(promote(NOW + 1, "")).isEqualTo(new PromoteScript.Result(PromotionOutcome.FULL, 0));
        assertThat(promote(NOW + 1, "")).isEqualTo(new PromoteScript.Result(PromotionOutcome.MOVED, 1));
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).containsExactly("next");
    }

    @Test
    void aPlaceWhosePageExpiredIsPassedOverAndItsHolderToldOnceTheHeadIsBy() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        for (int i = 0; i < 200; i++) {
            join("u" + i, NOW, 1);
        }
        // b holds ticket 2, on page 0, which expired on its own; the bucket still names it.
        redis.commands().del("qg:{42}:line:0");
        assertThat(placed(status("b", NOW))).as("until the head comes by, the bucket is all there is").isEqualTo(new Placed(State.WAITING, 1L));
        leave("a", NOW);
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).as("page 0 held tickets 0 to 127: u125 holds ticket 128")
                .containsExactly("u125");
        assertThat(placed(status("b", NOW))).as("passed: the place is gone").isEqualTo(new Placed(State.NOT_FOUND, 0L));
        assertThat(join("b", NOW, 1).placement().state()).isEqualTo(State.WAITING);
        assertThat(Lines.of(redis.commands(), PID)).last().isEqualTo("b");
    }

    @Test
    void theAdmissionRateIsAnExponentiallyWeightedAverageSharedInRedis() {
        // Two admissions per second for two minutes: the rate settles near 2/s.
        long now = NOW;
        for (int i = 0; i < 240; i++) {
            join("u" + i, now, 1_000_000);
            now += 500;
        }
        double rate = status("nobody", now).placement().admissionRate();
        assertThat(rate).isBetween(1.9, 2.1);
        // A minute with no admissions: the rate decays by about e.
        double later = status("nobody", now + 60_000).placement().admissionRate();
        assertThat(later).isBetween(rate / Math.E - 0.1, rate / Math.E + 0.1);
    }

    @Test
    void theRateIsUnknownForItsFirstSecondsThenHonestFromTheStart() {
        long now = NOW;
        for (int i = 0; i < 8; i++) {
            join("u" + i, now, 1_000_000);
            now += 1_000;
        }
        assertThat(status("nobody", NOW + 4_000).placement().admissionRate()).as("under 5 s of history").isZero();
        // One admission a second for 8 s: corrected for the warm-up, not 8/60.
        assertThat(status("nobody", now).placement().admissionRate()).isBetween(0.85, 1.15);
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
        assertThat(admin(AdminAction.PAUSE, "")).isZero();
        leave("a", NOW);
        assertThat(redis.commands().zcard(KEYS.active())).as("paused: nobody promoted").isZero();
        assertThat(admin(AdminAction.RESUME, "")).isEqualTo(1);
        assertThat(admin(AdminAction.MAX, "3")).isEqualTo(1);
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).containsExactlyInAnyOrder("b", "c");
        assertThat(admin(AdminAction.DRAIN, "")).isZero();
        assertThat(join("d", NOW, 1).placement().state()).as("draining: nobody new").isEqualTo(State.DRAINING);
        assertThat(join("b", NOW, 1).placement().state()).as("the active finish").isEqualTo(State.ACTIVE);
        assertThat(admin(AdminAction.MAX, "")).isZero();
    }

    @Test
    void aPassIsConfirmedOnlyForASessionThatLastsInARoomThatLetsItThroughAndInTheGatewaysEpoch() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        var settings = redis.commands().hgetall(KEYS.settings());
        var sessions = redis.commands().zrangeWithScores(KEYS.active(), 0, -1);
        long keys = redis.commands().dbsize();

        assertThat(pass("a", NOW + 1_000)).isEqualTo(NOW + TTL);
        assertThat(redis.scripts().scripts().pass().run(PID, NOW + 1_000, List.of("b", "a", "nobody", "a")).block())
                .as("many in one call, each answered in turn").containsExactly(null, NOW + TTL, null, NOW + TTL);
        assertThat(pass("b", NOW + 1_000)).as("waiting").isNull();
        assertThat(pass("nobody", NOW + 1_000)).isNull();
        assertThat(pass("a", NOW + TTL)).as("at the session's end").isNull();
        assertThat(redis.commands().hgetall(KEYS.settings())).as("it only reads").isEqualTo(settings);
        assertThat(redis.commands().zrangeWithScores(KEYS.active(), 0, -1)).isEqualTo(sessions);
        assertThat(redis.commands().dbsize()).isEqualTo(keys);

        admin(AdminAction.MODE, "closed");
        assertThat(pass("a", NOW + 1_000)).as("the room closed").isNull();
        for (String mode : List.of("queue-all", "passthrough")) {
            admin(AdminAction.MODE, mode);
            assertThat(pass("a", NOW + 1_000)).as(mode + ": the admitted finish").isEqualTo(NOW + TTL);
        }
        admin(AdminAction.DRAIN, "");
        assertThat(pass("a", NOW + 1_000)).as("draining: the admitted finish").isEqualTo(NOW + TTL);
        redis.commands().hset(KEYS.settings(), "epoch", "another");
        assertThat(pass("a", NOW + 1_000)).as("state of another epoch: the long way recovers").isNull();
        redis.commands().flushall();
        assertThat(pass("a", NOW + 1_000)).as("Redis forgot").isNull();
        assertThat(redis.commands().dbsize()).isZero();
    }

    private Long pass(String uid, long now) {
        return redis.scripts().scripts().pass().run(PID, now, List.of(uid)).block().get(0);
    }

    private long admin(AdminAction action, String value) {
        return redis.scripts().admin(PID, action, value, NOW);
    }

    @Test
    void aCompletingRequestClaimsTheCompletionForTheRestOfTheSessionOnce() {
        join("a", NOW, 1);
        assertThat(completing("a", NOW + 1_000, "first").placement().state()).isEqualTo(State.ACTIVE);
        assertThat(redis.commands().pttl(KEYS.completing("a"))).as("it ends with the session")
                .isBetween(TTL - 1_000 - 1_000, TTL - 1_000);
        assertThat(completing("a", NOW + 1_000, "second").placement().state()).as("a second completing request")
                .isEqualTo(State.COMPLETING);
        assertThat(join("a", NOW + 2_000, 1).placement().state()).as("any other request goes on")
                .isEqualTo(State.ACTIVE);
        leave("a", NOW + 3_000);
        assertThat(redis.commands().exists(KEYS.completing("a"))).as("the session's end takes the claim").isZero();
    }

    @Test
    void onlyTheRequestHoldingAClaimGivesItBack() {
        join("a", NOW, 1);
        completing("a", NOW + 1, "first");

        assertThat(giveBack("a", "second")).as("a request that never held it").isFalse();
        assertThat(completing("a", NOW + 2, "third").placement().state()).isEqualTo(State.COMPLETING);
        assertThat(giveBack("a", "first")).isTrue();
        assertThat(completing("a", NOW + 3, "fourth").placement().state()).as("free to claim again")
                .isEqualTo(State.ACTIVE);
        assertThat(giveBack("a", "first")).as("a late release of the first claim leaves the fourth").isFalse();
        assertThat(completing("a", NOW + 4, "fifth").placement().state()).isEqualTo(State.COMPLETING);
    }

    @Test
    void aClaimLeftByAnEarlierSessionNeverBlocksALaterOne() {
        join("a", NOW, 1);
        completing("a", NOW + 1, "old-session");
        // A release that never came (a gateway of the previous release left the claim behind), and the
        // session ended by time: the user is admitted again, to a session of its own.
        redis.commands().zrem(KEYS.active(), "a");
        assertThat(redis.commands().exists(KEYS.completing("a"))).isEqualTo(1);
        join("a", NOW + 5_000, 1);

        assertThat(completing("a", NOW + 6_000, "new-session").placement().state()).isEqualTo(State.ACTIVE);
        assertThat(completing("a", NOW + 6_001, "another").placement().state()).isEqualTo(State.COMPLETING);
    }

    @Test
    void aClaimOfThePreviousReleaseIsHeld() {
        join("a", NOW, 1);
        redis.commands().set(KEYS.completing("a"), "1");
        assertThat(completing("a", NOW + 1, "new").placement().state()).isEqualTo(State.COMPLETING);
    }

    @Test
    void aWaitingUsersCompletingRequestClaimsNothing() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        assertThat(completing("b", NOW + 1, "claim").placement().state()).isEqualTo(State.WAITING);
        assertThat(redis.commands().exists(KEYS.completing("b"))).isZero();
    }

    private JoinScript.Result completing(String user, long now, String claim) {
        return redis.scripts().join(new JoinScript.Args(PID, user, now, ProductRules.plain(1, Duration.ofMillis(TTL), "scheduler"),
                Duration.ofMillis(IDLE), null, claim));
    }

    private boolean giveBack(String user, String claim) {
        return redis.scripts().scripts().giveBack().run(PID, user, claim).block(Duration.ofSeconds(10));
    }

    @Test
    void joinStoresTheSettingsThatPromotionWithoutARequestUses() {
        join("a", NOW, 7);
        assertThat(redis.commands().hgetall(KEYS.settings()))
                .containsEntry("rule:max-active", "7").containsEntry("rule:session-ttl", Long.toString(TTL))
                .containsEntry("rule:promotion", "scheduler");
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
        assertThat(redis.commands().get(KEYS.slot("a"))).isEqualTo("1");
        assertThat(redis.commands().pttl(KEYS.slot("a"))).isBetween(TTL - 1_000, TTL);
        assertThat(redis.commands().exists(KEYS.slot("b"))).isZero();
        // Leaving deletes the slot (no expiry event follows) and hands the place, and a slot, to b.
        leave("a", NOW);
        assertThat(redis.commands().exists(KEYS.slot("a"))).isZero();
        assertThat(redis.commands().exists(KEYS.slot("b"))).isOne();
    }

    @Test
    void anExpiryHeardByThreeInstancesFreesExactlyOnePlaceAndPromotesExactlyOneUser() {
        for (String user : List.of("a", "b", "c", "d", "e")) {
            join(user, NOW, 2, "keyspace");
        }
        // Redis expired a's slot; all three gateway instances receive the event and run the script.
        redis.commands().del(KEYS.slot("a"));
        List<ExpireScript.Result> results = List.of(expire("a", NOW + 1), expire("a", NOW + 1), expire("a", NOW + 1));
        assertThat(results).containsExactly(new ExpireScript.Result(ExpiryOutcome.EXPIRED, 1),
                new ExpireScript.Result(ExpiryOutcome.HANDLED, 0), new ExpireScript.Result(ExpiryOutcome.HANDLED, 0));
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).containsExactlyInAnyOrder("b", "c");
        assertThat(Lines.of(redis.commands(), PID)).containsExactly("d", "e");
    }

    @Test
    void aStaleExpiryNeverEndsTheUsersNewerSession() {
        join("a", NOW, 1, "keyspace");
        // a's old slot expired, a came back and holds a fresh slot before the old event is handled
        assertThat(expire("a", NOW + 1)).isEqualTo(new ExpireScript.Result(ExpiryOutcome.NEWER_SESSION, 0));
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).containsExactly("a");
    }

    @Test
    void expiriesMissedByEveryListenerAreFoundByTheNextPromotionPass() {
        join("a", NOW, 1, "keyspace");
        join("b", NOW, 1, "keyspace");
        redis.commands().del(KEYS.slot("a"));
        // nobody heard the event; the safety net's pass drops a by its expiry score
        assertThat(promote(NOW + TTL, "")).isEqualTo(new PromoteScript.Result(PromotionOutcome.MOVED, 1));
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).containsExactly("b");
        assertThat(expire("a", NOW + TTL)).isEqualTo(new ExpireScript.Result(ExpiryOutcome.HANDLED, 0));
        assertThat(redis.commands().zcard(KEYS.active())).isOne();
    }

    @Test
    void leaveOnAStreamProductAsksForAStreamEvent() {
        join("a", NOW, 1, "stream");
        assertThat(leave("a", NOW)).isEqualTo(new LeaveScript.Result(true, 0, true));
        assertThat(leave("a", NOW)).isEqualTo(new LeaveScript.Result(false, 0, false));
    }

    @Test
    void claimTakesOverEventsADeadConsumerReadButNeverAcknowledged() {
        String stream = QueueKeys.SLOT_EVENTS;
        redis.commands().xgroupCreate(io.lettuce.core.XReadArgs.StreamOffset.from(stream, "0"), "g",
                io.lettuce.core.XGroupCreateArgs.Builder.mkstream());
        String id = redis.commands().xadd(stream, java.util.Map.of("pid", "42"));
        redis.commands().xreadgroup(io.lettuce.core.Consumer.from("g", "dead"),
                io.lettuce.core.XReadArgs.StreamOffset.lastConsumed(stream));
        List<StreamTakeoverScript.TakenOver> claimed = redis.scripts().takeOver("g", "alive", Duration.ZERO, 10, Duration.ofHours(1));
        assertThat(claimed).containsExactly(new StreamTakeoverScript.TakenOver(id, "42"));
        assertThat(redis.commands().xpending(stream, "g").getConsumerMessageCount()).containsOnlyKeys("alive");
        // The dead consumer now holds nothing; once idle past the limit it is forgotten.
        redis.scripts().takeOver("g", "alive", Duration.ZERO, 10, Duration.ZERO);
        assertThat(redis.commands().xinfoConsumers(stream, "g")).hasSize(1);
    }

    private JoinScript.Result join(String uid, long now, int max) {
        return join(uid, now, max, "scheduler");
    }

    private JoinScript.Result join(String uid, long now, int max, String strategy) {
        return redis.scripts().join(PID, uid, now, ProductRules.plain(max, Duration.ofMillis(TTL), strategy),
                Duration.ofMillis(IDLE));
    }

    private ExpireScript.Result expire(String uid, long now) {
        return redis.scripts().expire(PID, uid, now);
    }

    private PromoteScript.Result promote(long now, String strategy) {
        return redis.scripts().promote(PID, now, strategy);
    }

    private LeaveScript.Result leave(String uid, long now) {
        return redis.scripts().leave(PID, uid, now);
    }

    private QueueSnapshot snapshot(long now) {
        return redis.scripts().snapshot(PID, now);
    }

    private PlaceStatus status(String uid, long now) {
        return redis.scripts().status(PID, uid, now);
    }

    /** What a join answered, without the rate (which the tests check on their own). */
    record Joined(State state, long rank, long promoted, boolean enqueued) {
    }

    static Joined joined(JoinScript.Result result) {
        return new Joined(result.placement().state(), result.placement().rank(), result.promoted(), result.enqueued());
    }

    /** Where a status read found the user. */
    record Placed(State state, long rank) {
    }

    static Placed placed(PlaceStatus result) {
        return new Placed(result.placement().state(), result.placement().rank());
    }
}
