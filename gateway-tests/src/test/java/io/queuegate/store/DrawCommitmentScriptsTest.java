package io.queuegate.store;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import io.queuegate.room.Joined;
import io.queuegate.room.Placement.State;
import io.queuegate.room.Placement;
import io.queuegate.store.script.JoinScript;
import io.queuegate.store.script.ViewScript;
import io.queuegate.support.Draw;
import io.queuegate.support.PreviousRelease;
import io.queuegate.support.ScriptRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A sale's draw is committed before it happens: from its first ticket on, every script that
 * answers about the product (join, status, the instances' view, the operators' snapshot) gives
 * the SHA-256 of the seed, and the seed revealed at the opening hashes to it and recomputes the
 * order. On a real Redis with a fixed clock; every join passes a fresh random seed, as the gateway
 * does, so only the first one may count. A draw the previous release opened keeps its seed and its
 * order, and shows no commitment (a 53-bit seed's hash could be reversed).
 */
class DrawCommitmentScriptsTest {

    private static final String PID = "drop";
    private static final long NOW = 1_000_000_000L;
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final Duration IDLE = Duration.ofHours(1);
    /** 53 random bits in decimal, as the previous release drew a seed. */
    private static final String OLD_SEED = "6004799503160661";
    private static final QueueKeys KEYS = QueueKeys.of(PID);
    @RegisterExtension
    static final ScriptRedis redis = new ScriptRedis();

    private long opensAt;

    @Test
    void theCommitmentShownFromTheFirstTicketOnIsTheHashOfTheSeedRevealedAtOpeningWhichGivesTheOrder() {
        opensAt = NOW + 10_000;
        DrawSeed first = io.queuegate.support.Draw.randomSeed();
        Joined opener = join("u0", NOW, first).only();
        assertThat(opener.placement().state()).isEqualTo(State.PRE_QUEUE);
        assertThat(opener.seedCommitment()).as("the very first answer").isEqualTo(first.commitment());
        String committed = opener.seedCommitment();

        List<String> users = new ArrayList<>(List.of("u0"));
        for (int i = 1; i < 40; i++) {
            Joined joined = join("u" + i, NOW + i, io.queuegate.support.Draw.randomSeed()).only();
            assertThat(joined.seedCommitment()).as("u%d's join, with a seed of its own", i).isEqualTo(committed);
            users.add("u" + i);
        }
        assertThat(redis.scripts().status(PID, "u7", NOW + 100).seedCommitment()).isEqualTo(committed);
        ViewScript.Result view = view();
        assertThat(view.seedCommitment()).isEqualTo(committed);
        assertThat(view.seed()).as("the seed stays secret").isEmpty();
        QueueSnapshot before = redis.scripts().snapshot(PID, NOW + 100);
        assertThat(before.seedCommitment()).isEqualTo(committed);
        assertThat(before.opening()).as("nothing revealed before the opening").isNull();
        assertThat(redis.commands().hget(KEYS.settings(), "seed")).as("kept in Redis, shown to nobody").isEqualTo(first.seed());

        // Moved before it opens: the same draw, the same commitment, whatever seeds later joins bring.
        opensAt = NOW + 20_000;
        for (int i = 40; i < 60; i++) {
            assertThat(join("u" + i, NOW + 15_000 + i, io.queuegate.support.Draw.randomSeed()).only().seedCommitment())
                    .as("after opens-at moved").isEqualTo(committed);
            users.add("u" + i);
        }
        assertThat(redis.scripts().status(PID, "u0", NOW + 15_100).seedCommitment()).isEqualTo(committed);

        List<String> admitted = admissionOrder(opensAt);
        QueueSnapshot after = redis.scripts().snapshot(PID, opensAt + 1);
        String seed = after.opening().seed();
        assertThat(seed).as("the first join's seed, revealed").isEqualTo(first.seed()).matches("[0-9a-f]{64}");
        assertThat(Draw.commitment(seed)).as("sha256(seed) == seedCommitment").isEqualTo(committed);
        assertThat(after.seedCommitment()).as("still shown beside the seed").isEqualTo(committed);
        assertThat(after.opening().firstTicket()).isEqualTo(1);
        assertThat(after.opening().preQueued()).isEqualTo(60);
        assertThat(admitted).as("the order recomputed from the revealed seed").isEqualTo(Draw.order(seed, users))
                .isNotEqualTo(users);
    }

    @Test
    void aSaleDrawnAgainLaterIsCommittedAnew() {
        opensAt = NOW + 10_000;
        String firstCommitment = join("a", NOW, io.queuegate.support.Draw.randomSeed()).only().seedCommitment();
        join("b", NOW + 1, io.queuegate.support.Draw.randomSeed());
        assertThat(admissionOrder(opensAt)).containsExactlyInAnyOrder("a", "b");

        // The whole crowd of the first draw went through: a later opening draws anew.
        opensAt = NOW + 100_000;
        DrawSeed second = io.queuegate.support.Draw.randomSeed();
        Joined opener = join("c", NOW + 50_000, second).only();
        assertThat(opener.placement().state()).isEqualTo(State.PRE_QUEUE);
        assertThat(opener.seedCommitment()).isEqualTo(second.commitment()).isNotEqualTo(firstCommitment);
        join("d", NOW + 50_001, io.queuegate.support.Draw.randomSeed());
        assertThat(redis.scripts().snapshot(PID, NOW + 50_002).opening().seed()).as("the new draw's seed is secret again")
                .isNull();

        List<String> admitted = admissionOrder(opensAt);
        String seed = redis.scripts().snapshot(PID, opensAt + 1).opening().seed();
        assertThat(Draw.commitment(seed)).isEqualTo(second.commitment());
        assertThat(admitted).isEqualTo(Draw.order(seed, List.of("c", "d")));
    }

    @Test
    void aPreQueueThePreviousReleaseOpenedKeepsItsSeedAndItsOrderAndShowsNoCommitment() {
        opensAt = NOW + 10_000;
        PreviousRelease old = new PreviousRelease(redis.commands(), PID);
        List<String> users = IntStream.range(0, 30).mapToObj(i -> (i % 3 == 0 ? "old" : "new") + i).toList();
        for (int i = 0; i < users.size(); i++) {
            String user = users.get(i);
            if (user.startsWith("old")) {
                List<Object> joined = old.joinSale(user, NOW + i, 1, opensAt, OLD_SEED);
                assertThat(joined.get(0)).as("%s in the pre-queue", user).isEqualTo(2L);
            }
            else {
                Joined joined = join(user, NOW + i, io.queuegate.support.Draw.randomSeed()).only();
                assertThat(joined.placement()).as(user).isEqualTo(new Placement(State.PRE_QUEUE, i + 1, 0));
                assertThat(joined.seedCommitment()).as("a draw without a commitment stays without").isNull();
            }
        }
        assertThat(redis.commands().hget(KEYS.settings(), "seed")).as("no new join replaced the seed").isEqualTo(OLD_SEED);
        assertThat(redis.scripts().status(PID, "new1", NOW + 100).seedCommitment()).isNull();
        assertThat(view().seedCommitment()).isNull();
        assertThat(redis.scripts().snapshot(PID, NOW + 100).seedCommitment()).isNull();

        // Opened by this release's promotion, admitted as the previous release's draw placed them.
        List<String> admitted = admissionOrder(opensAt);
        QueueSnapshot after = redis.scripts().snapshot(PID, opensAt + 1);
        assertThat(after.opening().seed()).isEqualTo(OLD_SEED);
        assertThat(after.seedCommitment()).isNull();
        assertThat(admitted).isEqualTo(Draw.order(OLD_SEED, users));
    }

    @Test
    void aLaterDrawThePreviousReleaseOpensDoesNotShowTheCommitmentOfAnEarlierOne() {
        opensAt = NOW + 10_000;
        String earlier = join("a", NOW, io.queuegate.support.Draw.randomSeed()).only().seedCommitment();
        assertThat(earlier).isNotNull();
        assertThat(admissionOrder(opensAt)).containsExactly("a");

        opensAt = NOW + 100_000;
        new PreviousRelease(redis.commands(), PID).joinSale("b", NOW + 50_000, 1, opensAt, OLD_SEED);
        Joined joined = join("c", NOW + 50_001, io.queuegate.support.Draw.randomSeed()).only();
        assertThat(joined.placement().state()).isEqualTo(State.PRE_QUEUE);
        assertThat(joined.seedCommitment()).as("the earlier draw's commitment is not this draw's").isNull();
        assertThat(redis.scripts().status(PID, "b", NOW + 50_002).seedCommitment()).isNull();
        assertThat(view().seedCommitment()).isNull();
        assertThat(redis.scripts().snapshot(PID, NOW + 50_002).seedCommitment()).isNull();
        assertThat(admissionOrder(opensAt)).isEqualTo(Draw.order(OLD_SEED, List.of("b", "c")));
    }

    /** One join as the gateway makes it before opens-at: with a new seed for a draw it may open. */
    private JoinScript.Result join(String user, long now, DrawSeed seed) {
        ProductRules rules = new ProductRules(1, TTL, "scheduler", Instant.ofEpochMilli(opensAt), null, 0,
                Duration.ZERO, TTL);
        return redis.scripts().join(new JoinScript.Args(PID, user, now, rules, IDLE, seed, null));
    }

    private static ViewScript.Result view() {
        return redis.scripts().scripts().view().run(PID, null, -1).block(Duration.ofSeconds(10));
    }

    /** Opens the sale at {@code now} and admits one user after another (max-active 1) by ending each session. */
    private static List<String> admissionOrder(long now) {
        List<String> order = new ArrayList<>();
        redis.scripts().promote(PID, now, "");
        while (true) {
            List<String> active = redis.commands().zrange(KEYS.active(), 0, -1);
            if (active.isEmpty()) {
                return order;
            }
            order.add(active.get(0));
            redis.scripts().leave(PID, active.get(0), now);
        }
    }
}
