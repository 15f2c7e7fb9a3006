package io.queuegate.store;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.queuegate.room.Joined;
import io.queuegate.room.JoinTerms;
import io.queuegate.room.Joiner;
import io.queuegate.room.Placement.State;
import io.queuegate.store.script.JoinScript;
import io.queuegate.support.ScriptRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The single use of a proof-of-work solution, in {@code join.lua} on a real Redis with a fixed
 * clock: the first join that shows a solution takes its mark (one write, in the product's slot,
 * expiring when no instance would accept the solution any more); any later join with it is
 * {@code challenge_used} and changes nothing, also within one group-committed call.
 */
class ChallengeMarkScriptTest {

    private static final String PID = "42";
    private static final long NOW = 1_000_000L;
    private static final String MARK = "9f86d081884c7d659a2feaa0c55ad015";
    private static final ProductRules RULES = ProductRules.plain(1, Duration.ofMinutes(10), "pubsub");

    @RegisterExtension
    static final ScriptRedis redis = new ScriptRedis();

    @Test
    void theFirstJoinTakesTheMarkAndALaterOneIsRefusedWithNothingDone() {
        Joined first = join(new Joiner("alice", null, MARK, Duration.ofSeconds(150))).only();
        assertThat(first.placement().state()).isEqualTo(State.ACTIVE);
        assertThat(redis.commands().pttl(QueueKeys.of(PID).challenge(MARK))).isBetween(149_000L, 150_000L);
        String lastTicket = redis.commands().get(QueueKeys.of(PID).sequence());

        Joined replay = join(new Joiner("mallory", null, MARK, Duration.ofSeconds(150))).only();
        assertThat(replay.placement().state()).isEqualTo(State.CHALLENGE_USED);
        assertThat(replay.enqueued()).isFalse();
        assertThat(replay.ticket()).isNull();
        // Nobody new in line, nobody new active.
        assertThat(redis.commands().zrange(QueueKeys.of(PID).active(), 0, -1)).containsExactly("alice");
        assertThat(redis.commands().get(QueueKeys.of(PID).sequence())).isEqualTo(lastTicket);
    }

    @Test
    void twoJoinsWithOneSolutionInOneGroupCommittedCallJoinOnce() {
        JoinScript.Result result = join(new Joiner("bob", null, MARK, Duration.ofSeconds(60)),
                new Joiner("carol", null, MARK, Duration.ofSeconds(60)),
                new Joiner("dave", null));

        assertThat(result.joined()).extracting(joined -> joined.placement().state())
                .containsExactly(State.ACTIVE, State.CHALLENGE_USED, State.WAITING);
        // The refused join took no ticket and left no entry: the next user is next in line.
        assertThat(result.joined().get(2).ticket()).isEqualTo(2L);
        assertThat(result.joined().get(2).placement().rank()).isEqualTo(1);
        assertThat(redis.commands().hget(QueueKeys.of(PID).bucket(QueueKeys.bucketOf("carol")), "carol")).isNull();
    }

    @Test
    void aJoinRefusedForAUsedMarkHoldsNothingWhenItComesBackWithItsOwn() {
        join(new Joiner("alice", null, MARK, Duration.ofSeconds(60)));
        assertThat(join(new Joiner("mallory", null, MARK, Duration.ofSeconds(60))).only().placement()
                .state()).isEqualTo(State.CHALLENGE_USED);

        // Without a proof of work now, a phantom place left by the refusal would let mallory in.
        Joined unpaid = join(new Joiner("mallory", null).under(
                new JoinTerms(false, true, false))).only();
        assertThat(unpaid.placement().state()).isEqualTo(State.CHALLENGE_REQUIRED);

        Joined paid = join(new Joiner("mallory", null, "abc123", Duration.ofSeconds(60))).only();
        assertThat(paid.placement().state()).isEqualTo(State.WAITING);
        assertThat(paid.ticket()).isEqualTo(2L);
        assertThat(paid.enqueued()).isTrue();
    }

    @Test
    void aJoinRefusedForAUsedMarkOnAProductWithNoStateLeavesNothingOfIt() {
        // An invented product costs nothing: a sale that has opened must not be written down for
        // one whose only caller brought a used solution.
        redis.commands().set(QueueKeys.of(PID).challenge(MARK), "1");
        ProductRules opened = new ProductRules(1, Duration.ofMinutes(10), "pubsub", Instant.ofEpochMilli(NOW - 60_000),
                null, 0, Duration.ZERO, Duration.ZERO);

        Joined refused = redis.scripts().join(new JoinScript.Args(PID, NOW, opened, Duration.ofHours(2), null,
                List.of(new Joiner("mallory", null, MARK, Duration.ofSeconds(60))))).only();

        assertThat(refused.placement().state()).isEqualTo(State.CHALLENGE_USED);
        assertThat(redis.commands().keys("qg:{" + PID + "}:*")).containsExactly(QueueKeys.of(PID).challenge(MARK));
    }

    @Test
    void aJoinWithoutAMarkWritesNone() {
        join(new Joiner("alice", null));
        assertThat(redis.commands().keys("qg:{42}:pow:*")).isEmpty();
    }

    private static JoinScript.Result join(Joiner... joiners) {
        return redis.scripts().join(new JoinScript.Args(PID, NOW, RULES, Duration.ofHours(2), null, List.of(joiners)));
    }
}
