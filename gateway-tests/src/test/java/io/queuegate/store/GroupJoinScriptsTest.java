package io.queuegate.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.queuegate.room.Joined;
import io.queuegate.room.Joiner;
import io.queuegate.room.Placement.State;
import io.queuegate.room.Reclaim;
import io.queuegate.store.script.JoinScript;
import io.queuegate.support.Lines;
import io.queuegate.support.ScriptRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A group-committed join call as a storm sends it: many new users of one product in one call.
 * join.lua writes what they share (the ticket counter, the line's page, the seen bitmap) once,
 * after deciding them all, and must come out exactly as if each had been decided alone: the same
 * tickets, ranks, entries and marks, with nothing written for a user the call admits.
 */
class GroupJoinScriptsTest {

    private static final String PID = "storm";
    private static final long NOW = 1_800_000_000_000L;
    private static final Duration SESSION = Duration.ofMinutes(10);
    private static final Duration ABANDON = Duration.ofSeconds(60);
    private static final Duration IDLE = Duration.ofHours(2);
    private static final QueueKeys KEYS = QueueKeys.of(PID);

    @RegisterExtension
    static final ScriptRedis redis = new ScriptRedis();

    @Test
    void aStormsCallDecidesEachUserAsIfAloneAndWritesWhatTheyShareOnce() {
        Map<String, Long> before = commandCalls();
        List<String> users = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            users.add("u" + i);
        }

        JoinScript.Result result = join(NOW, users.toArray(String[]::new));
        Map<String, Long> used = since(before);

        assertThat(result.joined().get(0).placement().state()).isEqualTo(State.ACTIVE);
        for (int i = 1; i < 40; i++) {
            Joined joined = result.joined().get(i);
            assertThat(joined.placement().state()).isEqualTo(State.WAITING);
            assertThat(joined.placement().rank()).isEqualTo(i);
            assertThat(joined.ticket()).isEqualTo(i + 1L);
            assertThat(joined.enqueued()).isTrue();
        }
        assertThat(redis.commands().get(KEYS.sequence())).isEqualTo("40");
        assertThat(redis.commands().pttl(KEYS.sequence())).isPositive();
        assertThat(redis.commands().hlen(KEYS.page(0))).as("the admitted user is off the page").isEqualTo(39);
        assertThat(redis.commands().hget(KEYS.page(0), "40")).isEqualTo("u39");
        assertThat(redis.commands().pttl(KEYS.page(0))).isPositive();
        String seen = seenKey();
        assertThat(redis.commands().getbit(seen, 1)).as("the admitted user needs no mark").isZero();
        for (int ticket = 2; ticket <= 40; ticket++) {
            assertThat(redis.commands().getbit(seen, ticket)).as("ticket %d seen", ticket).isEqualTo(1);
        }
        assertThat(redis.commands().pttl(seen)).isPositive();
        assertThat(Lines.of(redis.commands(), PID)).hasSize(39).startsWith("u1").endsWith("u39");

        assertThat(used.getOrDefault("incr", 0L)).as("the counter is written once, not counted up per user").isZero();
        // Before each fill (the first user's, which admits them, and the second's, which finds the
        // product full) and once at the end.
        assertThat(used.getOrDefault("set", 0L)).isLessThanOrEqualTo(3);
        assertThat(used.getOrDefault("setbit", 0L)).as("seen marks go in one BITFIELD").isZero();
        assertThat(used.getOrDefault("bitfield", 0L)).isEqualTo(1);
        // One bucket entry per user; the rest a handful a call (the page before each fill and at
        // the end, the head the fill moved, the settings that changed).
        assertThat(used.getOrDefault("hset", 0L)).isLessThanOrEqualTo(40 + 8);
    }

    @Test
    void aStormsLaterCallMakesEachNewUsersPlaceWithOneBucketCommand() {
        // A product's first call goes the long way (it may have to leave nothing behind); from
        // then on a new user's bucket entry is found absent and written by one HSETNX.
        join(NOW, "first");
        List<String> users = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            users.add("n" + i);
        }
        Map<String, Long> before = commandCalls();

        JoinScript.Result result = join(NOW + 1, users.toArray(String[]::new));

        Map<String, Long> used = since(before);
        for (int i = 0; i < 40; i++) {
            assertThat(result.joined().get(i).ticket()).isEqualTo(i + 2L);
            assertThat(result.joined().get(i).placement().rank()).isEqualTo(i + 1);
        }
        assertThat(used.getOrDefault("hsetnx", 0L)).isEqualTo(40);
        assertThat(used.getOrDefault("hget", 0L)).as("no new user's bucket is read apart from its write").isZero();
        assertThat(used.getOrDefault("zmscore", 0L)).as("every user's session read in one command").isEqualTo(1);
        assertThat(used.getOrDefault("zscore", 0L)).as("no session read per user").isZero();
        assertThat(used.getOrDefault("hset", 0L)).as("the page and the settings, once each").isLessThanOrEqualTo(4);
        assertThat(Lines.of(redis.commands(), PID)).hasSize(40).startsWith("n0").endsWith("n39");
    }

    @Test
    void theSameNewUserTwiceInOneCallHoldsOnePlace() {
        join(NOW, "first");

        JoinScript.Result result = join(NOW, "twice", "twice", "after");

        assertThat(result.joined().get(0).ticket()).isEqualTo(2L);
        assertThat(result.joined().get(0).enqueued()).isTrue();
        assertThat(result.joined().get(1).ticket()).isEqualTo(2L);
        assertThat(result.joined().get(1).enqueued()).isFalse();
        assertThat(result.joined().get(2).ticket()).isEqualTo(3L);
        assertThat(result.joined().get(2).placement().rank()).isEqualTo(2L);
        assertThat(Lines.of(redis.commands(), PID)).containsExactly("twice", "after");
    }

    @Test
    void aUserAdmittedByTheCallThatEnqueuedThemLeavesNoSeenMark() {
        assertThat(join(NOW, "alone").joined().get(0).placement().state()).isEqualTo(State.ACTIVE);

        assertThat(redis.commands().keys("qg:{" + PID + "}:seen:*")).isEmpty();
        assertThat(redis.commands().keys("qg:{" + PID + "}:page:*")).isEmpty();
    }

    @Test
    void aUserEnqueuedAndReachedInOneCallIsSeenThoughTheAbandonClockStartedLongAgo() {
        join(NOW, "early");
        // Ten minutes on, the first session is over and the line's abandon clock long started:
        // a user the call enqueues and then reaches must count as seen, or the place would be lost.
        long later = NOW + SESSION.toMillis() + 1;
        // Someone asked a second ago (another instance's poll): no outage, so no fresh abandon clock.
        redis.commands().hset(KEYS.settings(), "heard_at", Long.toString(later - 1_000));
        JoinScript.Result result = join(later, "waits-a-bit", "next");

        assertThat(result.joined().get(0).placement().state()).isEqualTo(State.ACTIVE);
        assertThat(result.joined().get(1).placement().state()).isEqualTo(State.WAITING);
        assertThat(redis.commands().getbit(seenKey(), 3)).isEqualTo(1);
    }

    @Test
    void aUserTheCallAdmitsIsAdmittedForTheirNextRequestInTheSameCall() {
        // Each user's session is read once for the whole call, before anyone is decided: the fill
        // that admits 'first' must make the call read theirs again, or even the request it admitted
        // would be told it waits, and the second would make them a second place.
        JoinScript.Result result = join(NOW, "first", "first", "second");

        assertThat(result.joined().get(0).placement().state()).isEqualTo(State.ACTIVE);
        assertThat(result.joined().get(1).placement().state()).isEqualTo(State.ACTIVE);
        assertThat(result.joined().get(1).sessionEnd()).isEqualTo(result.joined().get(0).sessionEnd());
        assertThat(result.joined().get(2).placement().state()).isEqualTo(State.WAITING);
        assertThat(result.joined().get(2).placement().rank()).isEqualTo(1);
        assertThat(Lines.of(redis.commands(), PID)).containsExactly("second");
    }

    @Test
    void aFillThatAdmitsSomeoneElseLeavesTheOtherUsersSessionsAsRead() {
        // A passthrough product admits every joiner at once: after the first fill, only the users
        // it admitted are read again, not every later user of the call.
        join(NOW, "first");
        redis.commands().hset(KEYS.settings(), "mode", "passthrough");
        Map<String, Long> before = commandCalls();

        JoinScript.Result result = join(NOW + 1, "a", "b", "c", "d");

        Map<String, Long> used = since(before);
        assertThat(result.joined()).allSatisfy(joined -> assertThat(joined.placement().state()).isEqualTo(State.ACTIVE));
        assertThat(used.getOrDefault("zmscore", 0L)).isEqualTo(1);
        assertThat(used.getOrDefault("zscore", 0L)).as("each admitted user's own session, read again once").isEqualTo(4);
    }

    @Test
    void anArrivalIsTheSessionTheUsersNextRequestInTheSameCallFinds() {
        // Admitted by promotion with a minute to arrive; two requests of theirs meet in one call:
        // the first makes the session the full ten minutes, and the second must be told that end,
        // not the arrival deadline read before the call decided anyone.
        Duration arrival = Duration.ofMinutes(1);
        joinWith(NOW, arrival, new Joiner("holder", null));
        joinWith(NOW, arrival, new Joiner("early", null));
        long later = NOW + SESSION.toMillis() + 1;
        joinWith(later, arrival, new Joiner("other", null));
        assertThat(redis.commands().zscore(KEYS.active(), "early")).isEqualTo((double) (later + arrival.toMillis()));

        JoinScript.Result result = joinWith(later + 5, arrival, new Joiner("early", null), new Joiner("early", null));

        long fullEnd = later + 5 + SESSION.toMillis();
        assertThat(result.joined().get(0).sessionEnd()).isEqualTo(fullEnd);
        assertThat(result.joined().get(1).sessionEnd()).isEqualTo(fullEnd);
    }

    @Test
    void aSessionReclaimedByTheCallIsTheOneTheUsersNextRequestInTheSameCallFinds() {
        // After a loss a token brings its session back; a second request of the same shopper in the
        // same call must find it admitted, not take a place in line as well.
        join(NOW, "someone");
        long end = NOW + SESSION.toMillis();
        Joiner back = Joiner.reclaiming("returns", Reclaim.session(end, NOW - 1_000));

        JoinScript.Result result = joinWith(NOW + 5, Duration.ofSeconds(60), back, back);

        assertThat(result.joined().get(0).placement().state()).isEqualTo(State.ACTIVE);
        assertThat(result.joined().get(1).placement().state()).isEqualTo(State.ACTIVE);
        assertThat(result.joined().get(1).sessionEnd()).isEqualTo(end);
        assertThat(Lines.of(redis.commands(), PID)).isEmpty();
    }

    private static JoinScript.Result joinWith(long now, Duration arrival, Joiner... joiners) {
        ProductRules rules = new ProductRules(1, SESSION, "pubsub", null, null, 0, Duration.ZERO, arrival);
        return redis.scripts().join(new JoinScript.Args(PID, now, rules, IDLE, null, List.of(joiners)));
    }

    private static JoinScript.Result join(long now, String... users) {
        ProductRules rules = new ProductRules(1, SESSION, "pubsub", null, null, 0, ABANDON, Duration.ofSeconds(60));
        List<Joiner> joiners = new ArrayList<>();
        for (String user : users) {
            joiners.add(new Joiner(user, null));
        }
        return redis.scripts().join(new JoinScript.Args(PID, now, rules, IDLE, null, joiners));
    }

    private static String seenKey() {
        List<String> keys = redis.commands().keys("qg:{" + PID + "}:seen:*");
        assertThat(keys).hasSize(1);
        return keys.get(0);
    }

    private static Map<String, Long> commandCalls() {
        Map<String, Long> calls = new HashMap<>();
        Matcher m = Pattern.compile("cmdstat_([^:]+):calls=(\\d+)").matcher(redis.commands().info("commandstats"));
        while (m.find()) {
            calls.put(m.group(1), Long.parseLong(m.group(2)));
        }
        return calls;
    }

    private static Map<String, Long> since(Map<String, Long> before) {
        Map<String, Long> used = new HashMap<>();
        commandCalls().forEach((command, calls) -> used.put(command, calls - before.getOrDefault(command, 0L)));
        return used;
    }
}
