package io.queuegate.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import io.queuegate.room.Joined;
import io.queuegate.room.Joiner;
import io.queuegate.room.Placement;
import io.queuegate.store.script.JoinScript;

import org.junit.jupiter.api.Test;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The group commit's batches, with a sender that answers when the test says (join.lua's own
 * decisions are GroupJoinScriptsTest's): who goes in which call, and who hears which answer.
 */
class JoinBatcherTest {

    private static final ProductRules RULES = ProductRules.plain(1, Duration.ofMinutes(10), "scheduler");

    /** The calls sent, each its users, with the sink that answers it. */
    private final List<List<Joiner>> calls = new ArrayList<>();
    private final List<Sinks.One<JoinScript.Result>> answers = new ArrayList<>();

    private final JoinBatcher batcher = new JoinBatcher((productId, rules, joiners) -> {
        Sinks.One<JoinScript.Result> answer = Sinks.one();
        calls.add(joiners);
        answers.add(answer);
        return answer.asMono();
    });

    @Test
    void usersOfferedTogetherGoInOneCallNotTheFirstAlone() {
        List<Joiner> joiners = users("u", 5);
        List<Joined> outcomes = new ArrayList<>();
        batcher.joinAll("p", RULES, joiners).subscribe(outcomes::add);

        assertThat(calls).hasSize(1);
        assertThat(calls.get(0)).containsExactlyElementsOf(joiners);
        answer(0);
        assertThat(outcomes).extracting(joined -> joined.placement().rank()).containsExactly(1L, 2L, 3L, 4L, 5L);
    }

    @Test
    void usersOfferedWhileACallIsOutGoTogetherInTheNextAndABatchHoldsAtMostItsMaximum() {
        List<Joined> first = new ArrayList<>();
        batcher.join("p", RULES, new Joiner("alone", null)).subscribe(first::add);
        List<Joiner> joiners = users("u", JoinBatcher.MAX_BATCH + 6);
        List<Joined> outcomes = new ArrayList<>();
        batcher.joinAll("p", RULES, joiners).subscribe(outcomes::add);
        assertThat(calls).hasSize(1);

        answer(0);
        assertThat(first).hasSize(1);
        assertThat(calls).hasSize(2);
        assertThat(calls.get(1)).containsExactlyElementsOf(joiners.subList(0, JoinBatcher.MAX_BATCH));
        answer(1);
        assertThat(calls).hasSize(3);
        assertThat(calls.get(2)).containsExactlyElementsOf(joiners.subList(JoinBatcher.MAX_BATCH, joiners.size()));
        answer(2);
        assertThat(outcomes).hasSize(joiners.size());
        // Each hears their own answer, in the order they were offered.
        assertThat(outcomes.get(JoinBatcher.MAX_BATCH).placement().rank()).isEqualTo(1);
        assertThat(batcher.lanes()).as("a lane with nothing waiting retires").isZero();
    }

    @Test
    void aFailedCallFailsEveryUserItCarriedAndEveryUserBehindIt() {
        List<Throwable> failures = new ArrayList<>();
        batcher.joinAll("p", RULES, users("u", 3)).subscribe(joined -> { }, failures::add);
        batcher.joinAll("p", RULES, users("v", 2)).subscribe(joined -> { }, failures::add);
        answers.get(0).tryEmitError(new IllegalStateException("Redis went away"));
        // A Flux fails once: one failure for each offer, the first's carried and the second's behind it.
        assertThat(failures).hasSize(2);
        assertThat(calls).hasSize(1);
    }

    private static List<Joiner> users(String prefix, int count) {
        return IntStream.range(0, count).mapToObj(i -> new Joiner(prefix + i, null)).toList();
    }

    /** Answers the call: its users in order, each waiting at the rank of their place in it. */
    private void answer(int call) {
        List<Joined> joined = IntStream.range(0, calls.get(call).size())
                .mapToObj(i -> new Joined(new Placement(Placement.State.WAITING, i + 1, 0), false, null, null, null, null))
                .toList();
        answers.get(call).tryEmitValue(new JoinScript.Result(0, joined));
    }
}
