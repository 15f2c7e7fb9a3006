package io.queuegate.store;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.queuegate.room.AdminAction;
import io.queuegate.room.Invite;
import io.queuegate.room.Joined;
import io.queuegate.room.Joiner;
import io.queuegate.room.Placement.State;
import io.queuegate.room.Placement;
import io.queuegate.store.script.JoinScript;
import io.queuegate.support.Draw;
import io.queuegate.support.Lines;
import io.queuegate.support.ScriptRedis;
import io.queuegate.support.Scripts;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Invitations in the scripts, on a real Redis with a fixed clock: an invitation's uses are counted
 * in the step that makes a place, and only then; {@code invites: priority} keeps a second line,
 * served first, each line in its own order, and every limit of the first line holds for both.
 */
class InvitationScriptsTest {

    private static final String PID = "presale";
    private static final long NOW = 1_000_000_000L;
    private static final long TTL = 600_000L;
    private static final Duration IDLE = Duration.ofHours(1);
    private static final long EXPIRES = NOW + 3_600_000L;
    private static final QueueKeys KEYS = QueueKeys.of(PID);

    @RegisterExtension
    static final ScriptRedis redis = new ScriptRedis();

    @Test
    void anInvitationsUseIsCountedOnlyWhenItMakesAPlace() {
        Invite twice = Invite.of("inv-1", 2, EXPIRES, false);
        assertThat(join("alice", NOW, 1, twice).placement().state()).isEqualTo(State.ACTIVE);
        assertThat(join("bob", NOW, 1, twice).placement().state()).isEqualTo(State.WAITING);
        // Both again: they hold their places, and use nothing.
        assertThat(join("alice", NOW + 1, 1, twice).placement().state()).isEqualTo(State.ACTIVE);
        assertThat(join("bob", NOW + 1, 1, twice).placement()).isEqualTo(new Placement(State.WAITING, 1, 0));
        assertThat(redis.commands().get(KEYS.invite("inv-1"))).isEqualTo("2");

        Joined carol = join("carol", NOW + 2, 1, twice);
        assertThat(carol.placement().state()).isEqualTo(State.INVITE_USED);
        assertThat(carol.ticket()).isNull();
        assertThat(Lines.of(redis.commands(), PID)).containsExactly("bob");
        // Kept a minute past the invitation's expiry, for instances whose clocks run a little late.
        assertThat(redis.commands().pttl(KEYS.invite("inv-1"))).isBetween(EXPIRES - NOW + 60_000 - 5_000, EXPIRES - NOW + 60_000);
    }

    @Test
    void withoutTheInvitationANewPlaceNeedsNoneIsMade() {
        Joined mallory = join("mallory", NOW, 5, Invite.REQUIRED);
        assertThat(mallory.placement().state()).isEqualTo(State.INVITE_REQUIRED);
        assertThat(redis.commands().exists(KEYS.sequence(), KEYS.active())).isZero();

        // Someone already in line needs none to be told where they stand.
        join("alice", NOW, 1, Invite.of("inv-2", 5, EXPIRES, false));
        join("bob", NOW, 1, Invite.of("inv-2", 5, EXPIRES, false));
        assertThat(join("bob", NOW + 1, 1, Invite.REQUIRED).placement())
                .isEqualTo(new Placement(State.WAITING, 1, 0));
        assertThat(join("alice", NOW + 1, 1, Invite.REQUIRED).placement().state()).isEqualTo(State.ACTIVE);
    }

    @Test
    void aJoinTurnedAwayForAnotherReasonUsesNothing() {
        Invite once = Invite.of("inv-3", 1, EXPIRES, false);
        join("alice", NOW, 1, Invite.of("inv-other", 1, EXPIRES, false));
        redis.scripts().admin(PID, AdminAction.DRAIN, "", NOW + 1);
        assertThat(join("bob", NOW + 2, 1, once).placement().state()).isEqualTo(State.DRAINING);
        redis.scripts().admin(PID, AdminAction.RESUME, "", NOW + 3);
        redis.scripts().admin(PID, AdminAction.MODE, "closed", NOW + 4);
        assertThat(join("bob", NOW + 5, 1, once).placement().state()).isEqualTo(State.ROOM_CLOSED);
        assertThat(redis.commands().exists(KEYS.invite("inv-3"))).isZero();
        redis.scripts().admin(PID, AdminAction.MODE, "queue", NOW + 6);
        assertThat(join("bob", NOW + 7, 1, once).placement().state()).isEqualTo(State.WAITING);
        assertThat(redis.commands().get(KEYS.invite("inv-3"))).isEqualTo("1");
    }

    @Test
    void invitedJoinersOvertakeTheUninvitedWaitingAndEachLineKeepsItsOrder() {
        join("first", NOW, 1, Invite.NONE);
        assertThat(join("u1", NOW + 1, 1, Invite.NONE).placement().rank()).isEqualTo(1);
        assertThat(join("u2", NOW + 2, 1, Invite.NONE).placement().rank()).isEqualTo(2);
        Joined i1 = join("i1", NOW + 3, 1, invited("a"));
        assertThat(i1.placement()).isEqualTo(new Placement(State.WAITING, 1, 0));
        assertThat(i1.ticket()).as("the invited line's tickets are negative").isEqualTo(-1L);
        assertThat(join("i2", NOW + 4, 1, invited("b")).placement().rank()).isEqualTo(2);
        assertThat(join("u3", NOW + 5, 1, Invite.NONE).placement().rank()).as("behind both lines").isEqualTo(5);

        // The uninvited were pushed back: the one exception to "in join order".
        assertThat(redis.scripts().status(PID, "u1", NOW + 6).placement().rank()).isEqualTo(3);
        assertThat(redis.scripts().status(PID, "i2", NOW + 6).ticket()).isEqualTo(-2L);
        assertThat(Lines.of(redis.commands(), PID)).containsExactly("i1", "i2", "u1", "u2", "u3");

        assertThat(admittedOneByOne(NOW + 10)).containsExactly("i1", "i2", "u1", "u2", "u3");
    }

    @Test
    void aPlaceGivenUpInEitherLineMovesEveryoneBehindIt() {
        join("first", NOW, 1, Invite.NONE);
        join("u1", NOW + 1, 1, Invite.NONE);
        join("i1", NOW + 2, 1, invited("a"));
        join("i2", NOW + 3, 1, invited("b"));
        assertThat(redis.scripts().leave(PID, "i1", NOW + 4).held()).isTrue();
        assertThat(redis.scripts().status(PID, "i2", NOW + 5).placement().rank()).isEqualTo(1);
        assertThat(redis.scripts().status(PID, "u1", NOW + 5).placement().rank()).isEqualTo(2);
        assertThat(redis.scripts().snapshot(PID, NOW + 5).waiting()).isEqualTo(2);
        assertThat(admittedOneByOne(NOW + 10)).containsExactly("i2", "u1");
    }

    @Test
    void aClosedTabInTheInvitedLineLosesItsPlaceLikeAnyOther() {
        long abandon = 20_000;
        join("first", NOW, 1, Invite.NONE, abandon);
        join("i1", NOW + 1, 1, invited("a"), abandon);
        join("i2", NOW + 2, 1, invited("b"), abandon);
        join("u1", NOW + 3, 1, Invite.NONE, abandon);
        long later = NOW + abandon + 10_000;
        // The product is heard from all along (no outage to forgive)...
        for (long at = NOW + 5_000; at < later; at += 5_000) {
            redis.scripts().scripts().seen().run(PID, at, List.of()).block(Duration.ofSeconds(10));
        }
        // ...and only i2 and u1 keep asking (i2 answered from a gateway's memory: a batched seen mark).
        redis.scripts().scripts().seen().run(PID, later - 5_000, List.of(-2L)).block(Duration.ofSeconds(10));
        join("u1", later - 5_000, 1, Invite.NONE, abandon);
        redis.scripts().leave(PID, "first", later);
        assertThat(redis.commands().zrange(KEYS.active(), 0, -1)).containsExactly("i2");
        assertThat(redis.scripts().status(PID, "i1", later + 1).placement().state()).isEqualTo(State.NOT_FOUND);
    }

    @Test
    void aPreQueueDrawsBothLinesWithTheOneSeedAndTheInvitedGoFirst() {
        long opensAt = NOW + 60_000;
        List<String> uninvited = new ArrayList<>();
        List<String> inviteds = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            boolean isInvited = i % 3 == 0;
            String user = (isInvited ? "i" : "u") + i;
            Joined joined = join(user, NOW + i, 1, isInvited ? invited("d" + i) : Invite.NONE,
                    0, opensAt);
            assertThat(joined.placement()).isEqualTo(new Placement(State.PRE_QUEUE, i + 1, 0));
            (isInvited ? inviteds : uninvited).add(user);
        }
        // The opening closes both draws; then one place at a time.
        redis.scripts().promote(PID, opensAt, "");
        List<String> admitted = admittedOneByOne(opensAt + 1);
        List<String> expected = new ArrayList<>(Draw.order(Scripts.SEED.seed(), inviteds));
        expected.addAll(Draw.order(Scripts.SEED.seed(), uninvited));
        assertThat(admitted).isEqualTo(expected);
    }

    @Test
    void activeNeverExceedsMaxActiveWhateverTheMixOfLines() {
        Random random = new Random(12);
        long now = NOW;
        int max = 3;
        for (int step = 0; step < 400; step++) {
            now += random.nextInt(2_000);
            String user = "s" + random.nextInt(60);
            switch (random.nextInt(4)) {
                case 0 -> join(user, now, max, Invite.NONE);
                case 1 -> join(user, now, max, invited("r" + step));
                case 2 -> redis.scripts().leave(PID, user, now);
                default -> redis.scripts().promote(PID, now, "");
            }
            assertThat(redis.commands().zcount(KEYS.active(), io.lettuce.core.Range.create((double) now + 1, Double.MAX_VALUE)))
                    .isLessThanOrEqualTo(max);
        }
        assertThat(redis.commands().exists(KEYS.invitedSequence())).isEqualTo(1);
    }

    /** Lets the admitted leave, one at a time, and returns who got in, in order. */
    private static List<String> admittedOneByOne(long from) {
        List<String> admitted = new ArrayList<>();
        long now = from;
        for (int i = 0; i < 100 && (redis.commands().zcard(KEYS.active()) > 0 || !Lines.of(redis.commands(), PID).isEmpty()); i++) {
            for (String user : redis.commands().zrange(KEYS.active(), 0, -1)) {
                redis.scripts().leave(PID, user, now++);
                if (!user.equals("first")) {
                    admitted.add(user);
                }
            }
        }
        return admitted;
    }

    private static Invite invited(String id) {
        return Invite.of(id, 1, EXPIRES, true);
    }

    private static Joined join(String user, long now, int max, Invite invite) {
        return join(user, now, max, invite, 0);
    }

    private static Joined join(String user, long now, int max, Invite invite, long abandonAfter) {
        return join(user, now, max, invite, abandonAfter, -1);
    }

    private static Joined join(String user, long now, int max, Invite invite, long abandonAfter,
            long opensAt) {
        ProductRules rules = new ProductRules(max, Duration.ofMillis(TTL), "scheduler",
                opensAt < 0 ? null : Instant.ofEpochMilli(opensAt), null, 0, Duration.ofMillis(abandonAfter),
                Duration.ofMillis(TTL));
        return redis.scripts().join(new JoinScript.Args(PID, now, rules, IDLE, opensAt < 0 ? null : Scripts.SEED,
                List.of(new Joiner(user, null, invite)))).only();
    }
}
