package io.queuegate.store;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.lettuce.core.api.sync.RedisCommands;
import io.queuegate.room.Joined;
import io.queuegate.room.Joiner;
import io.queuegate.room.PlaceStatus;
import io.queuegate.room.Placement.State;
import io.queuegate.room.Reclaim;
import io.queuegate.store.script.JoinScript;
import io.queuegate.store.script.RecoverScript;
import io.queuegate.store.script.ViewScript;
import io.queuegate.support.Lines;
import io.queuegate.support.RedisProcess;
import io.queuegate.support.Scripts;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The line after Redis forgot, at the scripts' level, with {@code now} passed in: a product's
 * state written in one epoch of the Redis data, the data lost (an empty restart) or replaced by an
 * older copy (a failover), {@code recover.lua} given what a gateway remembered, and the shoppers
 * coming back with what their tokens prove ({@code fill.lua}'s {@code reclaim}).
 */
class RecoveryScriptsTest {

    private static final String PID = "42";
    private static final long NOW = 1_000_000L;
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final Duration IDLE = Duration.ofHours(2);
    private static final String BEFORE = "000000000000000a";
    private static final String AFTER = "000000000000000b";
    private static final long MARGIN = 16;

    private static RedisProcess redis;
    private static RedisCommands<String, String> commands;
    private static TestEpoch epoch;
    private static Scripts scripts;

    @BeforeAll
    static void startRedis() {
        redis = RedisProcess.start();
        commands = redis.commands();
        epoch = new TestEpoch();
        scripts = Scripts.on(redis, epoch);
    }

    @AfterAll
    static void stopRedis() {
        scripts.close();
        redis.close();
    }

    @BeforeEach
    void emptyRedis() {
        redis.flushAll();
        epoch.set(BEFORE, false);
    }

    @Test
    void placesComeBackWithTheirRanksWhateverOrderTheyReturnInAndNewcomersStandBehind() {
        ProductRules rules = rules(1, null);
        join("alice", NOW, rules, null);
        List<String> waiting = List.of("b", "c", "d", "e", "f", "g");
        Map<String, Long> tickets = new HashMap<>();
        Map<String, Long> ranks = new HashMap<>();
        for (String user : waiting) {
            Joined joined = join(user, NOW + 1, rules, null);
            tickets.put(user, joined.ticket());
            ranks.put(user, joined.placement().rank());
        }
        leave("d", NOW + 2);
        ranks.replaceAll((user, rank) -> status(user, NOW + 2).placement().rank());
        ViewScript.Result view = view();
        long aliceEnds = redis.commands().zscore(QueueKeys.of(PID).active(), "alice").longValue();

        redis.flushAll();
        epoch.set(AFTER, true);
        assertThatThrownBy(() -> run(scripts.scripts().join().run(args(rules, NOW + 3, new Joiner("zoe", null)))))
                .as("a product Redis forgot is recovered before anyone joins it").isInstanceOf(StaleProductException.class);
        recover(rules, NOW + 3, knowledge(view, List.of(new RecoverScript.Session("alice", aliceEnds, NOW)), Map.of()));

        // Back to front, with a newcomer in the middle of them.
        List<String> back = new ArrayList<>(List.of("g", "f", "e"));
        for (String user : back) {
            Joined joined = join(user, NOW + 4, rules, Reclaim.place(tickets.get(user)));
            assertThat(joined.placement().state()).as(user).isEqualTo(State.WAITING);
            assertThat(joined.placement().rank()).as(user + "'s rank, as before the loss").isEqualTo(ranks.get(user));
            assertThat(joined.ticket()).as(user + "'s ticket").isEqualTo(tickets.get(user));
        }
        Joined zoe = join("zoe", NOW + 5, rules, null);
        assertThat(zoe.placement().rank()).as("a newcomer stands behind every ticket that may still come back")
                .isGreaterThan(ranks.values().stream().mapToLong(Long::longValue).max().orElseThrow());
        assertThat(zoe.ticket()).isGreaterThan(view.last() + MARGIN - 1);
        for (String user : List.of("c", "b")) {
            assertThat(join(user, NOW + 6, rules, Reclaim.place(tickets.get(user))).placement().rank()).as(user)
                    .isEqualTo(ranks.get(user));
        }
        assertThat(Lines.of(commands, PID)).as("the order of the line before the loss, then the newcomer")
                .containsExactly("b", "c", "e", "f", "g", "zoe");
        assertThat(status("alice", NOW + 6).placement().state()).as("alice's session came back").isEqualTo(State.ACTIVE);
        assertThat(redis.commands().zcard(QueueKeys.of(PID).active())).as("and nobody took her place").isEqualTo(1);
    }

    @Test
    void aPlaceComesBackOnceAndNotForAShopperWhoLeftSince() {
        ProductRules rules = rules(1, null);
        join("alice", NOW, rules, null);
        long bob = join("bob", NOW, rules, null).ticket();
        long carol = join("carol", NOW, rules, null).ticket();
        ViewScript.Result view = view();
        redis.flushAll();
        epoch.set(AFTER, true);
        recover(rules, NOW + 1, knowledge(view, List.of(new RecoverScript.Session("alice", NOW + TTL.toMillis(), NOW)),
                Map.of()));

        assertThat(join("bob", NOW + 2, rules, Reclaim.place(bob)).ticket()).isEqualTo(bob);
        leave("bob", NOW + 3);
        Joined again = join("bob", NOW + 4, rules, Reclaim.place(bob));
        assertThat(again.enqueued()).as("the same ticket a second time: a new place at the back").isTrue();
        assertThat(again.ticket()).isGreaterThan(carol + MARGIN - 1);
        Joined thief = join("mallory", NOW + 5, rules, Reclaim.place(carol));
        assertThat(thief.ticket()).as("a ticket is its holder's place: the gateway sends only a token's own, "
                + "and a place is honoured once").isEqualTo(carol);
        assertThat(join("carol", NOW + 6, rules, Reclaim.place(carol)).enqueued()).isTrue();
    }

    @Test
    void aSessionComesBackUntilItsEndOnceAndNeverWhenItWasHeardToEnd() {
        ProductRules rules = rules(2, null);
        join("alice", NOW, rules, null);
        join("bob", NOW, rules, null);
        long ends = NOW + TTL.toMillis();
        redis.flushAll();
        epoch.set(AFTER, true);
        recover(rules, NOW + 1, knowledge(null, List.of(), Map.of("alice", NOW + 500)));

        // Asked where they stand (status.lua), which brings back and never joins.
        assertThat(status("alice", NOW + 2, Reclaim.session(ends, NOW)).placement().state())
                .as("alice bought before the loss: her session stays ended").isEqualTo(State.NOT_FOUND);
        PlaceStatus bob = status("bob", NOW + 2, Reclaim.session(ends, NOW));
        assertThat(bob.placement().state()).isEqualTo(State.ACTIVE);
        assertThat(redis.commands().zscore(QueueKeys.of(PID).active(), "bob")).as("until its original end")
                .isEqualTo((double) ends);
        leave("bob", NOW + 3);
        assertThat(status("bob", NOW + 4, Reclaim.session(ends, NOW)).placement().state())
                .as("once: after it ended, the same token brings nothing back").isEqualTo(State.NOT_FOUND);
        assertThat(status("carol", NOW + 5, Reclaim.session(NOW + 4, NOW)).placement().state())
                .as("a session past its end does not come back").isEqualTo(State.NOT_FOUND);
        assertThat(status("dave", NOW + 6, Reclaim.session(ends, NOW + 600)).placement().state())
                .as("a later session of someone heard to end before it comes back").isEqualTo(State.ACTIVE);
    }

    @Test
    void aReturningPlaceThePassedHeadIsServedAtTheNextFreePlaceBeforeTheLine() {
        ProductRules rules = rules(1, null);
        join("alice", NOW, rules, null);
        Map<String, Long> tickets = new HashMap<>();
        for (String user : List.of("b", "c", "d")) {
            tickets.put(user, join(user, NOW, rules, null).ticket());
        }
        long aliceEnds = NOW + TTL.toMillis();
        ViewScript.Result view = view();
        redis.flushAll();
        epoch.set(AFTER, true);
        recover(rules, NOW + 1, knowledge(view, List.of(new RecoverScript.Session("alice", aliceEnds, NOW)), Map.of()));

        join("c", NOW + 2, rules, Reclaim.place(tickets.get("c")));
        join("d", NOW + 2, rules, Reclaim.place(tickets.get("d")));
        leave("alice", NOW + 3);
        assertThat(status("c", NOW + 3).placement().state()).as("b never came back: the line went on").isEqualTo(State.ACTIVE);
        Joined b = join("b", NOW + 4, rules, Reclaim.place(tickets.get("b")));
        assertThat(b.placement().state()).isEqualTo(State.WAITING);
        assertThat(b.placement().rank()).as("ahead of the line").isEqualTo(1);
        assertThat(status("d", NOW + 4).placement().rank()).as("d behind b").isEqualTo(2);
        leave("c", NOW + 5);
        assertThat(status("b", NOW + 5).placement().state()).isEqualTo(State.ACTIVE);
        assertThat(status("d", NOW + 5).placement().rank()).isEqualTo(1);
    }

    @Test
    void aFailoverCopyBringsNoCompletedSessionBackAndLosesNoAdmission() {
        ProductRules rules = rules(2, null);
        join("alice", NOW, rules, null);
        join("bob", NOW, rules, null);
        join("carol", NOW, rules, null);
        Map<String, byte[]> replica = copy();
        // On the master, after the replica's copy: alice buys, carol is admitted, dave joins.
        leave("alice", NOW + 10);
        long carolEnds = status("carol", NOW + 10).placement().state() == State.ACTIVE ? NOW + 10 + TTL.toMillis() : -1;
        assertThat(carolEnds).isPositive();
        long dave = join("dave", NOW + 11, rules, null).ticket();
        ViewScript.Result view = view();

        restore(replica);
        epoch.set(AFTER, true);
        recover(rules, NOW + 12, knowledge(view, List.of(new RecoverScript.Session("bob", NOW + TTL.toMillis(), NOW),
                new RecoverScript.Session("carol", carolEnds, NOW + 10)), Map.of("alice", NOW + 10)));

        assertThat(status("alice", NOW + 13).placement().state()).as("alice's completed session").isEqualTo(State.NOT_FOUND);
        assertThat(status("carol", NOW + 13).placement().state()).isEqualTo(State.ACTIVE);
        assertThat(status("bob", NOW + 13).placement().state()).isEqualTo(State.ACTIVE);
        assertThat(Lines.of(commands, PID)).as("carol is through, not back in line").doesNotContain("carol");
        Joined daveBack = join("dave", NOW + 14, rules, Reclaim.place(dave));
        assertThat(daveBack.ticket()).as("a join the replica never had").isEqualTo(dave);
        assertThat(daveBack.placement().state()).isEqualTo(State.WAITING);
        assertThat(join("erin", NOW + 15, rules, null).ticket()).isGreaterThan(dave);
    }

    @Test
    void aPreQueueLostBeforeItsOpeningKeepsItsDrawAndItsCommitmentAndLaterJoinersJoinTheSameDraw() {
        Instant opens = Instant.ofEpochMilli(NOW + 60_000);
        ProductRules rules = rules(1, opens);
        Map<String, Long> tickets = new HashMap<>();
        for (String user : List.of("p1", "p2", "p3", "p4")) {
            tickets.put(user, join(user, NOW, rules, null).ticket());
        }
        ViewScript.Result view = view();
        String commitment = view.seedCommitment();
        assertThat(commitment).isEqualTo(Scripts.SEED.commitment());
        redis.flushAll();
        epoch.set(AFTER, true);
        RecoverScript.Knowledge known = knowledge(view, List.of(), Map.of());
        // The gateway derives the seed again; here, the test's own.
        known = new RecoverScript.Knowledge(known.main(), known.invited(), known.margin(), Scripts.SEED.seed(),
                Scripts.SEED.commitment(), known.opened(), known.roomReadAt(), known.mode(), known.draining(),
                known.maxOverride(), known.sessions(), known.ended());
        recover(rules, NOW + 1, known);

        for (String user : List.of("p3", "p1")) {
            Joined back = join(user, NOW + 2, rules, Reclaim.place(tickets.get(user)));
            assertThat(back.placement().state()).isEqualTo(State.PRE_QUEUE);
            assertThat(back.seedCommitment()).as("the commitment shown before the loss").isEqualTo(commitment);
        }
        Joined late = join("p5", NOW + 3, rules, null);
        assertThat(late.placement().state()).isEqualTo(State.PRE_QUEUE);

        // The opening: everyone who came back and the late joiner are drawn, by the committed seed.
        join("p2", opens.toEpochMilli() + 1, rules, Reclaim.place(tickets.get("p2")));
        QueueSnapshot opened = scripts.snapshot(PID, opens.toEpochMilli() + 2);
        assertThat(opened.opening().seed()).as("the seed committed to before the loss").isEqualTo(Scripts.SEED.seed());
        assertThat(opened.seedCommitment()).isEqualTo(commitment);
        List<String> drawn = new ArrayList<>(Lines.of(commands, PID));
        drawn.addAll(commands.zrange(QueueKeys.of(PID).active(), 0, -1));
        assertThat(drawn).as("in line or admitted at the opening").containsExactlyInAnyOrder("p1", "p2", "p3", "p5");
    }

    @Test
    void afterALossTheStockIsUnknownUntilSaidAndTheSettingDoesNotRestockIt() {
        ProductRules rules = new ProductRules(1, TTL, "pubsub", null, null, 0, Duration.ZERO, TTL, 1, 100L);
        join("alice", NOW, rules, null);
        commands.hset(QueueKeys.of(PID).settings(), "stock", "3");
        assertThat(join("bob", NOW + 1, rules, null).stock().left()).as("97 sold before the loss").isEqualTo(3);
        ViewScript.Result view = view();

        redis.flushAll();
        epoch.set(AFTER, true);
        recover(rules, NOW + 2, knowledge(view, List.of(), Map.of()));
        assertThat(join("carol", NOW + 3, rules, null).stock())
                .as("the 100 of the setting would sell 97 units that are gone: unknown until the shop or an operator says")
                .isNull();
        assertThat(run(scripts.scripts().stock().run(PID, 3, NOW + 4, NOW + 4)).stock()).isEqualTo(3);
    }

    @Test
    void afterALossTheRulesAreStoredAsAJoinStoresThem() {
        // join.lua and recover.lua each write the route's rules into the settings hash, where the
        // scripts that have no request read them: a rule one of them left out would be missing
        // after a loss. Both are given ProductRules.wire() and store it with fill.lua's store_rules.
        List<ProductRules> routes = List.of(
                new ProductRules(3, TTL, "pubsub", Instant.ofEpochMilli(NOW + 60_000), Instant.ofEpochMilli(NOW + 3_600_000),
                        120, Duration.ofSeconds(30), Duration.ofMinutes(2), 2, 50L),
                new ProductRules(1, TTL, "scheduler", null, null, 0, Duration.ZERO, Duration.ZERO));
        for (ProductRules rules : routes) {
            redis.flushAll();
            epoch.set(BEFORE, false);
            join("alice", NOW, rules, null);
            Map<String, String> joined = ruleFields();
            assertThat(joined).as("%s", rules).containsKeys("rule:max-active", "rule:session-ttl", "rule:promotion");

            redis.flushAll();
            epoch.set(AFTER, true);
            recover(rules, NOW + 1, knowledge(null, List.of(), Map.of()));

            assertThat(ruleFields()).as("%s", rules).isEqualTo(joined);
        }
    }

    /** The settings' fields that hold the route's rules (docs/redis.md's settings hash). */
    private static Map<String, String> ruleFields() {
        Map<String, String> rules = new TreeMap<>(commands.hgetall(QueueKeys.of(PID).settings()));
        rules.keySet().removeIf(field -> !field.startsWith("rule:"));
        return rules;
    }

    private static ProductRules rules(int maxActive, Instant opensAt) {
        return new ProductRules(maxActive, TTL, "pubsub", opensAt, null, 0, Duration.ZERO, TTL);
    }

    private static JoinScript.Args args(ProductRules rules, long now, Joiner joiner) {
        return new JoinScript.Args(PID, now, rules, IDLE, rules.opensAt() == null ? null : Scripts.SEED,
                List.of(joiner));
    }

    private static Joined join(String user, long now, ProductRules rules, Reclaim reclaim) {
        return run(scripts.scripts().join().run(args(rules, now, reclaim == null ? new Joiner(user, null)
                : Joiner.reclaiming(user, reclaim)))).only();
    }

    private static PlaceStatus status(String user, long now) {
        return status(user, now, null);
    }

    private static PlaceStatus status(String user, long now, Reclaim reclaim) {
        return run(scripts.scripts().status().run(PID, user, now, reclaim));
    }

    private static void leave(String user, long now) {
        run(scripts.scripts().leave().run(PID, user, now));
    }

    private static ViewScript.Result view() {
        return run(scripts.scripts().view().run(PID, null, -1));
    }

    private static void recover(ProductRules rules, long now, RecoverScript.Knowledge known) {
        RecoverScript.Result result = run(scripts.scripts().recover().run(PID,
                new RecoverScript.Args(now, IDLE, now + 120_000, false, rules, known)));
        assertThat(result.recovered()).isTrue();
    }

    /** What a gateway that read {@code view} remembers, with the sessions it heard of. */
    private static RecoverScript.Knowledge knowledge(ViewScript.Result view, List<RecoverScript.Session> sessions,
            Map<String, Long> ended) {
        if (view == null) {
            return new RecoverScript.Knowledge(null, null, MARGIN, null, null, null, null, null, false, null,
                    sessions, ended);
        }
        return new RecoverScript.Knowledge(new RecoverScript.Line(view.head(), view.last(), view.left(),
                view.drawFrom() < 0 ? null : view.drawFrom(), view.drawTo() < 0 ? null : view.drawTo()), null, MARGIN,
                null, null, null, NOW, view.mode(), view.draining(), null, sessions, ended);
    }

    /** Every key of the product, as a replica's older copy. */
    private static Map<String, byte[]> copy() {
        Map<String, byte[]> copy = new HashMap<>();
        var binary = redis.binaryCommands();
        for (String key : commands.keys("qg:{" + PID + "}:*")) {
            copy.put(key, binary.dump(key.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        }
        return copy;
    }

    private static void restore(Map<String, byte[]> copy) {
        redis.flushAll();
        var binary = redis.binaryCommands();
        copy.forEach((key, value) -> binary.restore(key.getBytes(java.nio.charset.StandardCharsets.UTF_8), 0, value));
    }

    private static <T> T run(Mono<T> call) {
        return call.block(Duration.ofSeconds(10));
    }

    /** An epoch the test moves on, as Redis's identity changes under the gateway. */
    static final class TestEpoch implements ScriptEpoch {

        private volatile String argument;

        void set(String id, boolean recovering) {
            argument = recovering ? id + "*" : id;
        }

        @Override
        public Mono<String> argument() {
            return Mono.fromSupplier(() -> argument);
        }

        @Override
        public void forgotten() {
        }
    }
}
