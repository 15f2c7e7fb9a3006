package io.queuegate.store;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.queuegate.room.AdminAction;
import io.queuegate.room.PlaceStatus;
import io.queuegate.room.Placement.State;
import io.queuegate.room.RoomMode;
import io.queuegate.store.script.JoinScript;
import io.queuegate.store.script.LeaveScript;
import io.queuegate.store.script.PromoteScript;
import io.queuegate.support.Draw;
import io.queuegate.support.Lines;
import io.queuegate.support.ScriptRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The rules of a drop (pre-queue, closing, room modes, pace, abandoned waiters, arrival) in the
 * Lua scripts on a real Redis, with {@code now} passed in, so time is a fixed clock moved by hand.
 */
class DropScriptsTest {

    private static final String PID = "drop";
    private static final long NOW = 1_000_000_000L;
    private static final long TTL = 600_000L;
    private static final long IDLE = 3_600_000L;
    private static final QueueKeys KEYS = QueueKeys.of(PID);
    @RegisterExtension
    static final ScriptRedis redis = new ScriptRedis();

    /** The rules each join passes; tests change what they need. */
    private long opensAt = -1;
    private long closesAt = -1;
    private int maxAdmitPerMinute;
    private long abandonAfter;
    private long arrivalTtl;

    @Test
    void preQueueIsAFairAuditableDrawAheadOfLaterArrivals() throws Exception {
        opensAt = NOW + 10_000;
        List<String> early = IntStream.range(0, 500).mapToObj(i -> "early-" + i).toList();
        for (int i = 0; i < early.size(); i++) {
            JoinScript.Result joined = join(early.get(i), NOW + i, 1);
            assertThat(joined.placement().state()).as("before opening everyone is pre-queued").isEqualTo(State.PRE_QUEUE);
            assertThat(joined.placement().rank()).as("the pre-queue's size").isEqualTo(i + 1L);
        }
        assertThat(promote(opensAt - 1).moved()).as("nobody is admitted before opening").isZero();
        assertThat(redis.commands().zcard(KEYS.active())).isZero();
        assertThat(status(early.get(7), opensAt - 1).placement().state()).isEqualTo(State.PRE_QUEUE);
        assertThat(snapshot(opensAt - 1).opening()).as("the seed stays secret until opening").isNull();

        List<String> late = IntStream.range(0, 20).mapToObj(i -> "late-" + i).toList();
        for (int i = 0; i < late.size(); i++) {
            assertThat(join(late.get(i), opensAt + i, 1).placement().state()).isEqualTo(State.WAITING);
        }
        List<String> drawn = Lines.of(redis.commands(), PID);
        promote(opensAt + 100);
        assertThat(Lines.of(redis.commands(), PID)).as("drawn once, not again").isEqualTo(drawn);

        List<String> admitted = admissionOrder(opensAt + 1_000);
        assertThat(admitted).hasSize(520);
        List<String> firstAdmitted = admitted.subList(0, 500);
        assertThat(firstAdmitted).as("every pre-queued user before every later arrival")
                .containsExactlyInAnyOrderElementsOf(early);
        assertThat(admitted.subList(500, 520)).as("later arrivals in arrival order").isEqualTo(late);
        assertThat(firstAdmitted).isNotEqualTo(early);
        double rho = spearman(early, firstAdmitted);
        // Under a fair draw rho has mean 0 and standard deviation 1/sqrt(499) = 0.045.
        assertThat(Math.abs(rho)).as("rank correlation with join order").isLessThan(0.2);

        // Audit: what the endpoint shows (seed, how many, first ticket) recomputes the very order
        // with the permutation as docs/drops.md describes it, written again here in Java.
        QueueSnapshot.Opening opening = snapshot(opensAt + 2_000).opening();
        String seed = opening.seed();
        assertThat(seed).as("shown once open").isEqualTo(redis.commands().hget(KEYS.settings(), "seed"));
        assertThat(opening.preQueued()).as("tickets drawn").isEqualTo(500L);
        long firstTicket = opening.firstTicket();
        assertThat(firstTicket).isEqualTo(1L);
        // early-i took ticket firstTicket + i, so the draw's order is recomputed from the join order.
        assertThat(firstAdmitted).isEqualTo(Draw.order(seed, early));
    }

    @Test
    void aClosedSaleTurnsNewCallersAwayButKeepsItsLine() {
        closesAt = NOW + 5_000;
        join("holder", NOW, 1);
        join("waiter", NOW + 1, 1);
        assertThat(join("newcomer", closesAt, 1).placement().state()).as("sale ended").isEqualTo(State.SALE_ENDED);
        assertThat(placed(join("waiter", closesAt + 10, 1))).isEqualTo(new Placed(State.WAITING, 1L));
        assertThat(join("holder", closesAt + 10, 1).placement().state()).isEqualTo(State.ACTIVE);
        assertThat(Lines.of(redis.commands(), PID)).containsExactly("waiter");
    }

    @Test
    void passthroughAdmitsEveryoneAndKeepsCounting() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        assertThat(admin(AdminAction.MODE, "passthrough", NOW + 1)).as("the waiting are let in at once").isEqualTo(1L);
        assertThat(join("c", NOW + 2, 1).placement().state()).isEqualTo(State.ACTIVE);
        assertThat(join("d", NOW + 3, 1).placement().state()).isEqualTo(State.ACTIVE);
        assertThat(redis.commands().zcard(KEYS.active())).as("counted, beyond max-active").isEqualTo(4L);

        admin(AdminAction.MODE, "queue", NOW + 4);
        assertThat(placed(join("e", NOW + 5, 1))).as("back to queueing: over capacity, so e waits").isEqualTo(new Placed(State.WAITING, 1L));
    }

    @Test
    void queueAllAdmitsNobodyNewEvenWithFreePlaces() {
        join("a", NOW, 3);
        admin(AdminAction.MODE, "queue-all", NOW + 1);
        assertThat(placed(join("b", NOW + 2, 3))).isEqualTo(new Placed(State.WAITING, 1L));
        assertThat(join("a", NOW + 3, 3).placement().state()).as("the admitted keep their session").isEqualTo(State.ACTIVE);
        assertThat(admin(AdminAction.MODE, "queue", NOW + 4)).as("switching back fills the free places").isEqualTo(1L);
    }

    @Test
    void aClosedRoomTurnsEveryoneAwayAndKeepsTheirPlaces() {
        join("a", NOW, 1);
        join("b", NOW, 1);
        admin(AdminAction.MODE, "closed", NOW + 1);
        assertThat(join("a", NOW + 2, 1).placement().state()).isEqualTo(State.ROOM_CLOSED);
        assertThat(join("b", NOW + 2, 1).placement().state()).isEqualTo(State.ROOM_CLOSED);
        assertThat(join("c", NOW + 2, 1).placement().state()).isEqualTo(State.ROOM_CLOSED);
        admin(AdminAction.MODE, "queue", NOW + 3);
        assertThat(join("a", NOW + 4, 1).placement().state()).isEqualTo(State.ACTIVE);
        assertThat(placed(join("b", NOW + 4, 1))).isEqualTo(new Placed(State.WAITING, 1L));
        assertThat(snapshot(NOW + 5).mode()).isEqualTo(RoomMode.QUEUE);
    }

    @Test
    void aClosedRoomKeepsThePlacesOfThoseWhoKeepAsking() {
        abandonAfter = 60_000;
        join("a", NOW, 1);
        join("asking", NOW, 1);
        join("gone", NOW, 1);
        admin(AdminAction.MODE, "closed", NOW + 1);
        for (long t = NOW + 15_000; t <= NOW + 300_000; t += 15_000) {
            assertThat(join("asking", t, 1).placement().state()).as("turned away while closed").isEqualTo(State.ROOM_CLOSED);
        }
        admin(AdminAction.MODE, "queue", NOW + 300_001);
        leave("a", NOW + 300_002);
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).containsExactly("asking");
        leave("asking", NOW + 300_003);
        assertThat(redis.commands().zcard(KEYS.active())).as("the closed tab is not let in").isZero();
        assertThat(Lines.of(redis.commands(), PID)).as("and lost its place").isEmpty();
    }

    @Test
    void aProductNobodyReachedForAWhileGivesEveryoneAnotherAbandonAfter() {
        abandonAfter = 60_000;
        join("a", NOW, 1);
        join("b", NOW + 1, 1);
        join("c", NOW + 2, 1);
        // Five minutes without a single request: Redis or every gateway was down. The first request
        // after it must not cost b and c their places, whose last polls are five minutes old.
        long back = NOW + 300_000;
        assertThat(placed(join("d", back, 1))).isEqualTo(new Placed(State.WAITING, 3L));
        leave("a", back + 1);
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).containsExactly("b");
        // Who then stays away a whole abandon-after does lose the place.
        for (long t = back + 15_000; t <= back + 75_000; t += 15_000) {
            join("d", t, 1);
        }
        leave("b", back + 75_001);
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).as("c never came back").containsExactly("d");
    }

    @Test
    void aShortAbandonAfterAskedAboutEveryFewHundredMillisecondsIsNeverTakenForAnOutage() {
        abandonAfter = 3_000;
        join("a", NOW, 1);
        join("closed-tab", NOW, 1);
        join("asking", NOW, 1);
        // Asked about every 800 ms (an instance flushing its marks): a once-a-second heard_at would
        // leave a 1.6 s gap, more than half the abandon-after, and forgive the closed tab.
        for (long t = NOW + 800; t <= NOW + 9_600; t += 800) {
            join("asking", t, 1);
        }
        leave("a", NOW + 9_601);
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).as("the closed tab is passed over").containsExactly("asking");
    }

    @Test
    void passthroughForwardsEveryoneWhateverThePaceOrTheOpening() {
        maxAdmitPerMinute = 60;
        opensAt = NOW + 60_000;
        join("early", NOW, 1);
        assertThat(admin(AdminAction.MODE, "passthrough", NOW + 1)).as("the pre-queue is let in").isEqualTo(1L);
        for (int i = 0; i < 5; i++) {
            assertThat(join("u" + i, NOW + 2, 1).placement().state()).as("u%d let in at once", i).isEqualTo(State.ACTIVE);
        }
        assertThat(redis.commands().zcard(KEYS.active())).isEqualTo(6L);
    }

    @Test
    void aSaleMovedBeforeItOpensKeepsItsDraw() {
        opensAt = NOW + 10_000;
        for (int i = 0; i < 30; i++) {
            join("first-" + i, NOW + i, 1);
        }
        String seed = redis.commands().hget(KEYS.settings(), "seed");
        opensAt = NOW + 20_000;
        for (int i = 0; i < 30; i++) {
            assertThat(join("second-" + i, NOW + 15_000 + i, 1).placement().state()).as("still before the opening").isEqualTo(State.PRE_QUEUE);
        }
        assertThat(redis.commands().hget(KEYS.settings(), "seed")).as("one draw, one seed").isEqualTo(seed);
        promote(opensAt);
        QueueSnapshot.Opening opening = snapshot(opensAt).opening();
        assertThat(opening.seed()).isEqualTo(seed);
        assertThat(opening.preQueued()).as("everyone who joined before the opening is drawn").isEqualTo(60L);
        assertThat(opening.firstTicket()).isEqualTo(1L);
    }

    @Test
    void placesGivenUpInThePreQueueAreNotCountedAfterTheDraw() {
        opensAt = NOW + 10_000;
        for (int i = 0; i < 10; i++) {
            join("u" + i, NOW, 1);
        }
        leave("u2", NOW + 1);
        leave("u5", NOW + 1);
        leave("u7", NOW + 1);
        assertThat(placed(join("u0", NOW + 2, 1))).as("the pre-queue's size").isEqualTo(new Placed(State.PRE_QUEUE, 7L));
        promote(opensAt);
        List<String> line = Lines.of(redis.commands(), PID);
        assertThat(line).hasSize(6).doesNotContain("u2", "u5", "u7");
        for (int i = 0; i < line.size(); i++) {
            assertThat(placed(status(line.get(i), opensAt + 1))).as(line.get(i)).isEqualTo(new Placed(State.WAITING, i + 1L));
        }
        assertThat(snapshot(opensAt + 1).waiting()).as("waiting").isEqualTo(6L);
    }

    @Test
    void aSaleOpenedAgainBeforeItsCrowdGotThroughDrawsNobodyNew() {
        opensAt = NOW + 10_000;
        for (int i = 0; i < 20; i++) {
            join("crowd-" + i, NOW, 1);
        }
        promote(opensAt);
        String firstIn = redis.commands().zrange(KEYS.active(), 0, -1).get(0);
        List<String> crowd = Lines.of(redis.commands(), PID);
        // The operator moves opens-at later while 19 of the first crowd still wait.
        opensAt = NOW + 60_000;
        for (int i = 0; i < 5; i++) {
            assertThat(join("next-" + i, NOW + 20_000 + i, 1).placement().state()).isEqualTo(State.PRE_QUEUE);
        }
        List<String> admitted = admissionOrder(opensAt);
        assertThat(admitted.get(0)).isEqualTo(firstIn);
        assertThat(admitted.subList(1, 20)).as("the first crowd keeps its drawn order").isEqualTo(crowd);
        assertThat(admitted.subList(20, 25)).as("then the newcomers, in arrival order")
                .containsExactly("next-0", "next-1", "next-2", "next-3", "next-4");
    }

    @Test
    void anUnknownModeIsRefused() {
        join("a", NOW, 1);
        assertThatThrownBy(() -> admin(AdminAction.MODE, "open-sesame", NOW)).isInstanceOf(org.springframework.data.redis.RedisSystemException.class)
                .hasMessageContaining("unknown mode");
    }

    @Test
    void paceSpreadsAdmissionsEvenWhilePlacesAreFree() {
        maxAdmitPerMinute = 60;
        for (int i = 0; i < 40; i++) {
            join("u" + i, NOW, 100);
        }
        long thirtiethAt = -1;
        for (long t = NOW; t <= NOW + 40_000; t += 250) {
            promote(t);
            long admitted = redis.commands().zcard(KEYS.active());
            assertThat(admitted).as("never ahead of the pace at %d ms", t - NOW)
                    .isLessThanOrEqualTo(1 + (t - NOW) / 1_000);
            if (admitted >= 30 && thirtiethAt < 0) {
                thirtiethAt = t;
            }
        }
        assertThat(thirtiethAt - NOW).as("30 admissions at 60 a minute").isBetween(24_000L, 36_000L);
    }

    @Test
    void paceAllowsAtMostOneSecondsWorthAtOnce() {
        maxAdmitPerMinute = 600;
        for (int i = 0; i < 100; i++) {
            join("u" + i, NOW, 1_000);
        }
        long before = redis.commands().zcard(KEYS.active());
        promote(NOW + 60_000);
        assertThat(redis.commands().zcard(KEYS.active()) - before).as("after a long quiet, a second's worth, not a minute's")
                .isEqualTo(10L);
    }

    @Test
    void waitersWhoStopPollingAreSkippedAndRemoved() {
        abandonAfter = 60_000;
        join("holder", NOW, 1);
        List<String> polling = new ArrayList<>();
        List<String> gone = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String uid = "w" + i;
            join(uid, NOW + i, 1);
            (i % 2 == 0 ? polling : gone).add(uid);
        }
        for (long t = NOW + 10_000; t <= NOW + 70_000; t += 10_000) {
            for (int i = 0; i < polling.size(); i++) {
                // Half poll the route, half the status endpoint: both keep the place.
                if (i % 2 == 0) {
                    join(polling.get(i), t, 1);
                }
                else {
                    status(polling.get(i), t);
                }
            }
        }
        List<String> admitted = new ArrayList<>();
        long t = NOW + 70_500;
        leave("holder", t);
        for (int i = 0; i < 10; i++) {
            String active = redis.commands().zrange(KEYS.active(), 0, -1).get(0);
            admitted.add(active);
            leave(active, t);
        }
        assertThat(admitted).containsExactlyElementsOf(polling);
        assertThat(Lines.of(redis.commands(), PID)).as("the closed tabs lost their places").isEmpty();
        assertThat(snapshot(t).waiting()).as("nobody counted as waiting").isZero();
        assertThat(snapshot(t).abandoned()).as("the closed tabs, counted").isEqualTo(10L);
    }

    @Test
    void whoJoinedThePreQueueKeepsTheirPlaceThroughTheOpeningIfTheyComeBackWithinAbandonAfter() {
        abandonAfter = 3_000;
        opensAt = NOW + 60_000;
        // Four shoppers join a minute early, as JSON clients would; three ask nothing more.
        List<String> early = List.of("ann", "ben", "cat", "dan");
        for (int i = 0; i < early.size(); i++) {
            assertThat(join(early.get(i), NOW + i, 1).placement().state()).isEqualTo(State.PRE_QUEUE);
        }
        // Ann keeps asking until just before the opening: the product was never out of reach.
        for (long t = NOW + 1_000; t < opensAt; t += 1_000) {
            join("ann", t, 1);
        }

        // The gateway's timed loop opens the sale: the first drawn is let in, nobody is dropped.
        PromoteScript.Result opening = promote(opensAt);
        assertThat(opening.moved()).as("the first drawn is admitted at the opening").isEqualTo(1L);
        assertThat(opening.abandoned()).as("dropped at the opening").isZero();
        List<String> drawn = Draw.order(redis.commands().hget(KEYS.settings(), "seed"), early);
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).containsExactly(drawn.get(0));
        assertThat(snapshot(opensAt).waiting()).as("nobody of the pre-queue lost their place").isEqualTo(3L);

        // The second and third drawn come back within abandon-after of the opening and keep asking;
        // the last drawn never comes back.
        for (long t = opensAt + 2_500; t <= opensAt + 8_000; t += 1_000) {
            assertThat(status(drawn.get(1), t).placement().state()).isEqualTo(State.WAITING);
            assertThat(status(drawn.get(2), t).placement().state()).isEqualTo(State.WAITING);
        }
        leave(drawn.get(0), opensAt + 8_000);
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).containsExactly(drawn.get(1));
        leave(drawn.get(1), opensAt + 8_000);
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).containsExactly(drawn.get(2));
        assertThat(snapshot(opensAt + 8_000).abandoned()).isZero();
        assertThat(leave(drawn.get(2), opensAt + 8_000).abandoned()).as("dropped, and said so").isEqualTo(1L);
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).as("who never came back is passed over").isEmpty();
        assertThat(status(drawn.get(3), opensAt + 8_000).placement().state()).isEqualTo(State.NOT_FOUND);
        assertThat(snapshot(opensAt + 8_000).abandoned()).as("the operators' count").isEqualTo(1L);
    }

    @Test
    void anAdmittedUserMustArriveInTimeAndArrivingExtendsToTheSession() {
        arrivalTtl = 60_000;
        assertThat(join("a", NOW, 1).placement().state()).isEqualTo(State.ACTIVE);
        assertThat(redis.commands().zscore(KEYS.active(), "a")).as("joined and admitted at once: arrived")
                .isEqualTo((double) (NOW + TTL));
        join("b", NOW + 1, 1);
        join("c", NOW + 2, 1);
        leave("a", NOW + 1_000);
        assertThat(redis.commands().zscore(KEYS.active(), "b")).as("promoted: an arrival window, not a session")
                .isEqualTo((double) (NOW + 1_000 + 60_000));
        promote(NOW + 61_001);
        assertThat(redis.commands().zscore(KEYS.active(), "b")).as("b never came: the place moved on").isNull();
        assertThat(redis.commands().zscore(KEYS.active(), "c")).isNotNull();
        assertThat(join("c", NOW + 70_000, 1).placement().state()).isEqualTo(State.ACTIVE);
        assertThat(redis.commands().zscore(KEYS.active(), "c")).as("arrived: the full session from now")
                .isEqualTo((double) (NOW + 70_000 + TTL));
        join("c", NOW + 80_000, 1);
        assertThat(redis.commands().zscore(KEYS.active(), "c")).as("later requests do not extend it")
                .isEqualTo((double) (NOW + 70_000 + TTL));
    }

    /** Admits one user after another by ending each session, from {@code now} on. */
    private List<String> admissionOrder(long now) {
        List<String> order = new ArrayList<>();
        promote(now);
        while (true) {
            List<String> active = redis.commands().zrange(KEYS.active(), 0, -1);
            if (active.isEmpty()) {
                return order;
            }
            order.add(active.get(0));
            leave(active.get(0), now);
        }
    }

    private static double spearman(List<String> joinOrder, List<String> admissionOrder) {
        int n = joinOrder.size();
        var position = IntStream.range(0, n).boxed().collect(Collectors.toMap(admissionOrder::get, i -> i));
        double sumSquares = 0;
        for (int i = 0; i < n; i++) {
            double d = i - position.get(joinOrder.get(i));
            sumSquares += d * d;
        }
        return 1 - 6 * sumSquares / ((double) n * ((double) n * n - 1));
    }

    private JoinScript.Result join(String uid, long now, int max) {
        ProductRules rules = new ProductRules(max, Duration.ofMillis(TTL), "scheduler",
                opensAt < 0 ? null : Instant.ofEpochMilli(opensAt), closesAt < 0 ? null : Instant.ofEpochMilli(closesAt),
                maxAdmitPerMinute, Duration.ofMillis(abandonAfter), Duration.ofMillis(arrivalTtl == 0 ? TTL : arrivalTtl));
        return redis.scripts().join(PID, uid, now, rules, Duration.ofMillis(IDLE));
    }

    private PromoteScript.Result promote(long now) {
        return redis.scripts().promote(PID, now, "");
    }

    private LeaveScript.Result leave(String uid, long now) {
        return redis.scripts().leave(PID, uid, now);
    }

    private PlaceStatus status(String uid, long now) {
        return redis.scripts().status(PID, uid, now);
    }

    private long admin(AdminAction action, String value, long now) {
        return redis.scripts().admin(PID, action, value, now);
    }

    private QueueSnapshot snapshot(long now) {
        return redis.scripts().snapshot(PID, now);
    }

    /** Where a user stands, as a join or a status read found them. */
    record Placed(State state, long rank) {
    }

    static Placed placed(JoinScript.Result result) {
        return new Placed(result.placement().state(), result.placement().rank());
    }

    static Placed placed(PlaceStatus result) {
        return new Placed(result.placement().state(), result.placement().rank());
    }
}
