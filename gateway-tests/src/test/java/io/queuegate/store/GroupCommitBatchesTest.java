package io.queuegate.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import io.queuegate.room.Joined;
import io.queuegate.room.Joiner;
import io.queuegate.room.Placement;

import org.junit.jupiter.api.Test;

import reactor.core.publisher.Sinks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The group commit's batches, with a sender that answers when the test says (join.lua's own
 * decisions are GroupJoinScriptsTest's): who goes in which call, and who hears which answer.
 */
class GroupCommitBatchesTest {

    private static final ProductRules RULES = ProductRules.plain(1, Duration.ofMinutes(10), "scheduler");

    /** The calls sent, each its users, with the sink that answers it. */
    private final List<List<Joiner>> calls = new ArrayList<>();
    private final List<Sinks.One<List<Joined>>> answers = new ArrayList<>();

    /** Join lanes as the store keys them: one product, under the same rules. */
    private record Lane(String productId, ProductRules rules) {
    }

    private final GroupCommit<Lane, Joiner, Joined> batcher = new GroupCommit<>((lane, joiners) -> {
        Sinks.One<List<Joined>> answer = Sinks.one();
        calls.add(joiners);
        answers.add(answer);
        return answer.asMono();
    }, "joins", Lane::productId);

    @Test
    void joinsThatComeWhileACallIsOutGoTogetherInTheNextAtMostABatchACall() {
        List<Joined> first = new ArrayList<>();
        batcher.submit(new Lane("p", RULES), new Joiner("alone", null)).subscribe(first::add);
        List<Joiner> joiners = users("u", GroupCommit.MAX_BATCH + 6);
        List<Joined> outcomes = new ArrayList<>();
        joiners.forEach(joiner -> batcher.submit(new Lane("p", RULES), joiner).subscribe(outcomes::add));
        assertThat(calls).as("a quiet product's join goes at once, alone").hasSize(1);

        answer(0);
        assertThat(first).hasSize(1);
        assertThat(calls).hasSize(2);
        assertThat(calls.get(1)).containsExactlyElementsOf(joiners.subList(0, GroupCommit.MAX_BATCH));
        answer(1);
        assertThat(calls).hasSize(3);
        assertThat(calls.get(2)).containsExactlyElementsOf(joiners.subList(GroupCommit.MAX_BATCH, joiners.size()));
        answer(2);
        // Each hears their own answer: the rank of their place in their call.
        assertThat(outcomes).extracting(joined -> joined.placement().rank())
                .containsExactlyElementsOf(IntStream.range(0, joiners.size())
                        .mapToObj(i -> (long) (i % GroupCommit.MAX_BATCH + 1)).toList());
        assertThat(batcher.lanes()).as("a lane with nothing waiting retires").isZero();
    }

    @Test
    void aFailedCallFailsEveryUserItCarriedAndEveryUserBehindIt() {
        List<Throwable> failures = new ArrayList<>();
        batcher.submit(new Lane("p", RULES), new Joiner("carried", null)).subscribe(joined -> { }, failures::add);
        users("behind", 3).forEach(joiner -> batcher.submit(new Lane("p", RULES), joiner)
                .subscribe(joined -> { }, failures::add));
        answers.get(0).tryEmitError(new IllegalStateException("Redis went away"));
        assertThat(failures).hasSize(4);
        assertThat(calls).as("nobody behind waits out a failing call of their own").hasSize(1);
        assertThat(batcher.lanes()).isZero();
    }

    @Test
    void productsAndRulesHaveLanesOfTheirOwn() {
        batcher.submit(new Lane("p", RULES), new Joiner("a", null)).subscribe();
        batcher.submit(new Lane("q", RULES), new Joiner("b", null)).subscribe();
        batcher.submit(new Lane("p", ProductRules.plain(2, Duration.ofMinutes(10), "scheduler")), new Joiner("c", null))
                .subscribe();
        assertThat(calls).as("none waits for another's call").hasSize(3);
    }

    private static List<Joiner> users(String prefix, int count) {
        return IntStream.range(0, count).mapToObj(i -> new Joiner(prefix + i, null)).toList();
    }

    /** Answers the call: its users in order, each waiting at the rank of their place in it. */
    private void answer(int call) {
        List<Joined> joined = IntStream.range(0, calls.get(call).size())
                .mapToObj(i -> new Joined(new Placement(Placement.State.WAITING, i + 1, 0), false, null, null, null, null))
                .toList();
        answers.get(call).tryEmitValue(joined);
    }
}
