package io.queuegate.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.queuegate.room.Joined;
import io.queuegate.room.Joiner;
import org.junit.jupiter.api.Test;

import org.springframework.dao.QueryTimeoutException;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The group commit's own rules, apart from Redis (the scripts' behaviour with several users in a
 * call is in {@code GroupJoinScriptsTest} and {@code QueueScriptsTest}, in gateway-tests): what happens to the joins waiting behind
 * a call that fails, and to joins beyond what a product's lane may hold.
 */
class GroupCommitTest {

    private final List<Sinks.One<List<Joined>>> calls = new CopyOnWriteArrayList<>();
    private final GroupCommit<String, Joiner, Joined> batcher = new GroupCommit<>((productId, joiners) -> {
        Sinks.One<List<Joined>> call = Sinks.one();
        calls.add(call);
        return call.asMono();
    }, "joins", productId -> productId);

    @Test
    void aFailedCallFailsEveryJoinWaitingBehindItAtOnce() {
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 5; i++) {
            join("u" + i).subscribe(joined -> { }, errors::add);
        }
        assertThat(calls).as("one call in flight; the other four wait for it").hasSize(1);

        calls.get(0).tryEmitError(new QueryTimeoutException("Redis timed out"));

        assertThat(errors).as("none waits out a failing call of its own").hasSize(5);
        assertThat(calls).hasSize(1);
        assertThat(batcher.lanes()).as("the lane retired").isZero();
    }

    @Test
    void joinsBeyondWhatALaneHoldsAreAnsweredAtOnceAsARedisFailure() {
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        List<Mono<Joined>> joins = new ArrayList<>();
        for (int i = 0; i < 1 + GroupCommit.MAX_WAITING + 3; i++) {
            joins.add(join("u" + i));
        }
        joins.forEach(join -> join.subscribe(joined -> { }, errors::add));

        assertThat(errors).as("the three beyond the lane's bound").hasSize(3)
                .allSatisfy(error -> assertThat(RedisFailures.isRedisFailure(error)).isTrue())
                .allSatisfy(error -> assertThat(error).hasMessage("Redis is not keeping up: "
                        + GroupCommit.MAX_WAITING + " joins of product p wait"));
    }

    @Test
    void aUserTheCallAnswersWithNothingCompletesEmptyAndTheLaneGoesOn() {
        List<String> heard = new CopyOnWriteArrayList<>();
        join("first").subscribe(joined -> heard.add("first: answered"), error -> heard.add("first: failed"),
                () -> heard.add("first: done"));
        join("second").subscribe(joined -> heard.add("second: answered"), error -> heard.add("second: failed"),
                () -> heard.add("second: done"));

        calls.get(0).tryEmitValue(Arrays.asList((Joined) null));
        assertThat(heard).containsExactly("first: done");
        assertThat(calls).as("the next batch goes").hasSize(2);
    }

    @Test
    void aCallThatAnswersFewerUsersThanItCarriedFailsAsAFailedCallDoes() {
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        for (String user : List.of("first", "second", "third")) {
            join(user).subscribe(joined -> { }, errors::add);
        }

        calls.get(0).tryEmitValue(List.of());

        assertThat(errors).as("its user, and the two waiting behind it: no answer goes to the wrong user")
                .hasSize(3).allSatisfy(error -> assertThat(error).isInstanceOf(IllegalStateException.class)
                        .hasMessage("the script answered 0 of 1 joins of product p"));
        assertThat(calls).hasSize(1);
        assertThat(batcher.lanes()).as("the lane retired").isZero();
    }

    private Mono<Joined> join(String user) {
        return batcher.submit("p", new Joiner(user, null));
    }
}
