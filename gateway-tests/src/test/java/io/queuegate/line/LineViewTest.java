package io.queuegate.line;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;

import io.queuegate.room.Invite;
import io.queuegate.room.Joined;
import io.queuegate.room.Joiner;
import io.queuegate.room.PlaceStatus;
import io.queuegate.store.DrawSeed;
import io.queuegate.room.Placement;
import io.queuegate.room.Placement.State;
import io.queuegate.store.ProductRules;
import io.queuegate.room.RoomMode;
import io.queuegate.store.script.JoinScript;
import io.queuegate.store.script.ViewScript;
import io.queuegate.support.Draw;
import io.queuegate.support.ScriptRedis;
import io.queuegate.support.Scripts;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An instance's view of a line answers exactly what the scripts answer at the moment it was read:
 * checked against {@code status.lua} and {@code join.lua} on a real Redis, for a plain line with
 * places given up and for a sale's drawn line.
 */
class LineViewTest {

    private static final String PID = "view";
    private static final long NOW = 1_000_000_000L;
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final Duration IDLE = Duration.ofHours(1);
    @RegisterExtension
    static final ScriptRedis redis = new ScriptRedis();

    @Test
    void aLineWithPlacesGivenUpIsRankedAsTheScriptsRankIt() {
        ProductRules rules = new ProductRules(3, TTL, "scheduler", null, null, 0, Duration.ZERO, TTL);
        Map<String, Long> tickets = joinAll(rules, 40, NOW);
        for (String gone : List.of("u5", "u6", "u17", "u30")) {
            redis.scripts().leave(PID, gone, NOW + 10);
        }
        // Sessions end: promotion moves the head past some of those who gave up.
        redis.scripts().promote(PID, NOW + TTL.toMillis() + 1, "");
        long now = NOW + TTL.toMillis() + 2;

        LineView view = read(now);
        assertThat(view.head()).as("the head moved past given-up places").isGreaterThan(5);

        assertEveryoneRankedAsRedisRanksThem(view, tickets, now);
        assertThat(view.placementOf(tickets.get("u17"), now, true)).as("given up: only Redis can say").isNull();
        assertThat(view.placementOf(tickets.get("u0"), now, true)).as("admitted: only Redis can say").isNull();
        assertThat(view.placementOf(10_000, now, true)).as("a ticket not handed out yet").isNull();
    }

    @Test
    void aDrawnLineIsRankedAsTheScriptsRankIt() {
        assertADrawnLineIsRankedAsTheScriptsRankIt(Scripts.SEED);
    }

    @Test
    void aLineDrawnWithA256BitSeedIsRankedAsTheScriptsRankItAndItsViewCarriesTheCommitment() {
        assertADrawnLineIsRankedAsTheScriptsRankIt(io.queuegate.support.Draw.randomSeed());
    }

    /** Joins 300 before the opening, the first with {@code seed}, and compares every rank after it. */
    private void assertADrawnLineIsRankedAsTheScriptsRankIt(DrawSeed seed) {
        long opensAt = NOW + 60_000;
        ProductRules rules = new ProductRules(2, TTL, "scheduler", Instant.ofEpochMilli(opensAt), null, 0,
                Duration.ZERO, TTL);
        Map<String, Long> tickets = new LinkedHashMap<>();
        for (int i = 0; i < 300; i++) {
            JoinScript.Result joined = redis.scripts().join(new JoinScript.Args(PID, "u" + i, NOW + i, rules, IDLE,
                    i == 0 ? seed : io.queuegate.support.Draw.randomSeed(), null));
            tickets.put("u" + i, joined.only().ticket());
        }
        LineView before = read(NOW + 1_000);
        assertThat(before.seedCommitment()).as("from the draw's first ticket on").isEqualTo(seed.commitment());
        assertThat(before.seed()).as("secret until the opening").isEmpty();
        Placement preQueued = before.placementOf(tickets.get("u7"), NOW + 1_000, true);
        assertThat(preQueued.state()).isEqualTo(State.PRE_QUEUE);
        assertThat(preQueued.rank()).as("how many are in the pre-queue").isEqualTo(300);
        assertThat(before.placementOf(tickets.get("u7"), opensAt, true))
                .as("opens-at passed, the opening not recorded yet: a write, for Redis").isNull();

        // The first request after opens-at draws the line; some leave, some are admitted.
        Map<String, Long> late = new LinkedHashMap<>();
        for (int i = 0; i < 10; i++) {
            JoinScript.Result joined = redis.scripts().join(PID, "late" + i, opensAt + i, rules, IDLE);
            late.put("late" + i, joined.only().ticket());
        }
        tickets.putAll(late);
        redis.scripts().leave(PID, "u100", opensAt + 20);
        redis.scripts().leave(PID, "u200", opensAt + 21);
        long now = opensAt + 30;

        LineView view = read(now);
        assertThat(view.seed()).as("the seed is known once the draw is closed").isEqualTo(seed.seed());
        assertThat(view.seedCommitment()).isEqualTo(seed.commitment());
        assertEveryoneRankedAsRedisRanksThem(view, tickets, now);
    }

    @Test
    void aPlaceGivenUpBeforeTheOpeningIsNotAnsweredAsPreQueued() {
        long opensAt = NOW + 60_000;
        ProductRules rules = new ProductRules(2, TTL, "scheduler", Instant.ofEpochMilli(opensAt), null, 0,
                Duration.ZERO, TTL);
        Map<String, Long> tickets = joinAll(rules, 5, NOW);
        redis.scripts().leave(PID, "u2", NOW + 10);

        LineView view = read(NOW + 20);
        assertThat(view.placementOf(tickets.get("u2"), NOW + 20, true))
                .as("left the pre-queue: Redis joins them again, into the draw").isNull();
        assertThat(view.placementOf(tickets.get("u3"), NOW + 20, true).state()).isEqualTo(State.PRE_QUEUE);
    }

    @Test
    void aProductWithAnInvitedLineIsRankedAsTheScriptsRankIt() {
        ProductRules rules = new ProductRules(2, TTL, "scheduler", null, null, 0, Duration.ZERO, TTL);
        Map<String, Long> tickets = new LinkedHashMap<>();
        for (int i = 0; i < 60; i++) {
            Invite invite = i % 4 == 1 ? Invite.of("v" + i, 1, NOW + 3_600_000, true)
                    : Invite.NONE;
            Joined joined = redis.scripts().join(new JoinScript.Args(PID, NOW + i, rules, IDLE, null,
                    List.of(new Joiner("u" + i, null, invite)))).only();
            tickets.put("u" + i, joined.ticket() != null ? joined.ticket() : 0L);
        }
        // Places given up in both lines; sessions end and the invited line is served first.
        for (String gone : List.of("u5", "u9", "u20", "u33")) {
            redis.scripts().leave(PID, gone, NOW + 100);
        }
        redis.scripts().promote(PID, NOW + TTL.toMillis() + 1, "");
        long now = NOW + TTL.toMillis() + 2;

        LineView view = read(now);
        assertThat(view.invited().head()).as("the invited line moved first").isGreaterThan(1);
        assertEveryoneRankedAsRedisRanksThem(view, tickets, now);
        assertThat(tickets.get("u41")).as("an invited ticket").isNegative();

        // Places made in the invited line since the read push the main line back, never the invited.
        long uninvited = view.placementOf(tickets.get("u40"), now, false).rank();
        long invited = view.placementOf(tickets.get("u41"), now, false).rank();
        assertThat(view.placementOf(tickets.get("u40"), now, false, 3).rank()).isEqualTo(uninvited + 3);
        assertThat(view.placementOf(tickets.get("u41"), now, false, 3).rank()).isEqualTo(invited);
    }

    @Test
    void aClosedRoomTurnsAPollAwayButAQuestionStillGetsTheRank() {
        ProductRules rules = new ProductRules(1, TTL, "scheduler", null, null, 0, Duration.ZERO, TTL);
        Map<String, Long> tickets = joinAll(rules, 3, NOW);
        LineView open = read(NOW + 1);

        LineView closed = withMode(open, RoomMode.CLOSED);
        assertThat(closed.placementOf(tickets.get("u2"), NOW + 1, true).state()).isEqualTo(State.ROOM_CLOSED);
        assertThat(closed.placementOf(tickets.get("u2"), NOW + 1, false).rank()).isEqualTo(2);
        assertThat(withMode(open, RoomMode.PASSTHROUGH).placementOf(tickets.get("u2"), NOW + 1, true))
                .as("passthrough lets everyone in: Redis does").isNull();
        assertThat(withMode(open, RoomMode.QUEUE_ALL).placementOf(tickets.get("u2"), NOW + 1, true).rank()).isEqualTo(2);
    }

    @Test
    void tooManyPlacesGivenUpToSendLeaveEveryRankToRedis() {
        ProductRules rules = new ProductRules(1, TTL, "scheduler", null, null, 0, Duration.ZERO, TTL);
        Map<String, Long> tickets = joinAll(rules, 3, NOW);
        LineView view = read(NOW + 1);
        LineView incomplete = new LineView(view.readAt(), 0, true, view.head(), view.last(), 1, 20_000, new long[0],
                false, -1, -1, "", null, -1, -1, RoomMode.QUEUE, -1, -1, -1, 0);
        assertThat(incomplete.placementOf(tickets.get("u2"), NOW + 1, true)).isNull();
    }

    @Test
    void theDrawInJavaIsTheDrawInLua() {
        Random random = new Random(7);
        byte[] bits = new byte[32];
        for (int i = 0; i < 2_000; i++) {
            // Both kinds of seed: 53 bits in decimal (the previous release's) and 256 bits in hex.
            random.nextBytes(bits);
            String seed = i % 2 == 0 ? Long.toString(random.nextLong() >>> 11) : HexFormat.of().formatHex(bits);
            long size = 1 + random.nextInt(100_000);
            long x = random.nextLong(size);
            assertThat(DrawOrder.permute(seed, size, x)).isEqualTo(Draw.permute(seed, size, x));
        }
    }

    private void assertEveryoneRankedAsRedisRanksThem(LineView view, Map<String, Long> tickets, long now) {
        int inLine = 0;
        for (Map.Entry<String, Long> user : tickets.entrySet()) {
            PlaceStatus status = redis.scripts().status(PID, user.getKey(), now);
            Placement local = view.placementOf(user.getValue(), now, false);
            if (status.placement().state() == State.WAITING) {
                inLine++;
                assertThat(local).as(user.getKey()).isEqualTo(status.placement());
            }
            else {
                assertThat(local).as(user.getKey() + " is " + status.placement().state()).isNull();
            }
        }
        assertThat(inLine).isGreaterThan(10);
    }

    private static Map<String, Long> joinAll(ProductRules rules, int count, long at) {
        Map<String, Long> tickets = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            JoinScript.Result joined = redis.scripts().join(PID, "u" + i, at + i, rules, IDLE);
            Long ticket = joined.only().ticket();
            tickets.put("u" + i, ticket != null ? ticket : 0L);
        }
        return tickets;
    }

    private static LineView read(long now) {
        ViewScript.Result read = redis.scripts().scripts().view().run(PID, null, -1).block(Duration.ofSeconds(10));
        return LineView.of(now, 0, read, null);
    }

    private static LineView withMode(LineView view, RoomMode mode) {
        return new LineView(view.readAt(), view.admissionsHeard(), view.known(), view.head(), view.last(),
                view.leftVersion(), view.leftCount(), view.left(), view.leftComplete(), view.drawFrom(), view.drawTo(),
                view.seed(), view.seedCommitment(), view.opens(), view.opened(), mode, view.rate(), view.rateAt(), view.rateSince(),
                view.abandonAfterMillis());
    }
}
