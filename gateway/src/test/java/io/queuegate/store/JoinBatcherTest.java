package io.queuegate.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.queuegate.room.Joined;
import io.queuegate.room.Joiner;
import io.queuegate.store.script.JoinScript;
import org.junit.jupiter.api.Test;

import org.springframework.dao.QueryTimeoutException;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The group commit's own rules, apart from Redis (the scripts' behaviour with several users in a
 * call is in {@code QueueScriptsTest}, in gateway-tests): what happens to the joins waiting behind
 * a call that fails, and to joins beyond what a product's lane may hold.
 */
class JoinBatcherTest {

    private static final ProductRules RULES = new ProductRules(1, Duration.ofMinutes(10), "scheduler", null, null, 0,
            Duration.ZERO, Duration.ofMinutes(1));

    private final List<Sinks.One<JoinScript.Result>> calls = new CopyOnWriteArrayList<>();
    private final JoinBatcher batcher = new JoinBatcher((productId, rules, joiners) -> {
        Sinks.One<JoinScript.Result> call = Sinks.one();
        calls.add(call);
        return call.asMono();
    });

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
        for (int i = 0; i < 1 + JoinBatcher.MAX_WAITING + 3; i++) {
            joins.add(join("u" + i));
        }
        joins.forEach(join -> join.subscribe(joined -> { }, errors::add));

        assertThat(errors).as("the three beyond the lane's bound").hasSize(3)
                .allSatisfy(error -> assertThat(RedisFailures.isRedisFailure(error)).isTrue());
    }

    private Mono<Joined> join(String user) {
        return batcher.join("p", RULES, new Joiner(user, null));
    }
}
