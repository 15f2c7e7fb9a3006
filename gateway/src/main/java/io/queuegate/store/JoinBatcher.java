package io.queuegate.store;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.queuegate.room.Joined;
import io.queuegate.room.Joiner;
import io.queuegate.store.script.JoinScript;

import org.springframework.dao.QueryTimeoutException;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Group commit for {@code join.lua}: while one call for a product is on its way to Redis, the
 * joins and Redis-side polls that arrive for the same product (under the same rules) wait and go
 * together in the next call. A quiet product's join goes at once, alone; in a join storm one call
 * carries up to {@value #MAX_BATCH} users, and the call's fixed costs to Redis (the script, the
 * product's settings, its rules) are paid once for all of them. Each user is decided in turn by
 * the script, exactly as if alone; a call that fails fails every user it carried and every user
 * waiting behind it.
 */
final class JoinBatcher {

    /** The most users one call carries: it holds Redis for about 15 µs each. */
    static final int MAX_BATCH = 64;

    /**
     * The most users that wait for a product's next calls. Beyond it Redis is not keeping up, and
     * a request answered at once as a Redis failure (its route's {@code on-redis-failure}) is
     * better than one that waits behind many calls.
     */
    static final int MAX_WAITING = 16 * MAX_BATCH;

    private final Map<Lane.Key, Lane> lanes = new ConcurrentHashMap<>();

    /** Sends a batch: the joiners in order, to one call of the script. */
    interface Sender {
        Mono<JoinScript.Result> send(String productId, ProductRules rules, List<Joiner> joiners);
    }

    private final Sender sender;

    JoinBatcher(Sender sender) {
        this.sender = sender;
    }

    /** The user's outcome, decided in the next call for the product; nothing is sent until subscribed. */
    Mono<Joined> join(String productId, ProductRules rules, Joiner joiner) {
        return Mono.defer(() -> {
            Sinks.One<Joined> outcome = Sinks.one();
            Lane.Key key = new Lane.Key(productId, rules);
            Pending pending = new Pending(joiner, outcome);
            Lane lane = lanes.computeIfAbsent(key, Lane::new);
            while (!lane.offer(pending)) {
                // The lane retired between the lookup and the offer: a fresh one takes it.
                lanes.remove(key, lane);
                lane = lanes.computeIfAbsent(key, Lane::new);
            }
            return outcome.asMono();
        });
    }

    /** How many products have a lane open (for tests). */
    int lanes() {
        return lanes.size();
    }

    private record Pending(Joiner joiner, Sinks.One<Joined> outcome) {
    }

    /** One product's (and rules') queue of joins, with at most one call in flight. */
    private final class Lane {

        record Key(String productId, ProductRules rules) {
        }

        private final Key key;
        private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
        private boolean inFlight;
        private boolean retired;

        Lane(Key key) {
            this.key = key;
        }

        /** @return false when the lane has retired and takes nothing more */
        boolean offer(Pending pending) {
            List<Pending> batch;
            synchronized (this) {
                if (retired) {
                    return false;
                }
                if (waiting.size() >= MAX_WAITING) {
                    pending.outcome().tryEmitError(new QueryTimeoutException(
                            "Redis is not keeping up: " + MAX_WAITING + " joins of product " + key.productId() + " wait"));
                    return true;
                }
                waiting.add(pending);
                if (inFlight) {
                    return true;
                }
                inFlight = true;
                batch = take();
            }
            send(batch);
            return true;
        }

        /** Takes the next batch; the caller holds the lock. */
        private List<Pending> take() {
            List<Pending> batch = new ArrayList<>(Math.min(waiting.size(), MAX_BATCH));
            while (!waiting.isEmpty() && batch.size() < MAX_BATCH) {
                batch.add(waiting.poll());
            }
            return batch;
        }

        private void send(List<Pending> batch) {
            List<Joiner> joiners = batch.stream().map(Pending::joiner).toList();
            Mono<JoinScript.Result> call;
            try {
                call = sender.send(key.productId(), key.rules(), joiners);
            }
            catch (RuntimeException ex) {
                call = Mono.error(ex);
            }
            call.subscribe(result -> {
                for (int i = 0; i < batch.size(); i++) {
                    batch.get(i).outcome().tryEmitValue(result.joined().get(i));
                }
            }, error -> failAll(batch, error), this::next);
        }

        /**
         * A failed call fails its batch and every join waiting behind it, and retires the lane:
         * each would otherwise wait out its own failing call in turn, far past the Redis timeout.
         */
        private void failAll(List<Pending> batch, Throwable error) {
            List<Pending> behind;
            synchronized (this) {
                behind = new ArrayList<>(waiting);
                waiting.clear();
                inFlight = false;
                retired = true;
                lanes.remove(key, this);
            }
            batch.forEach(pending -> pending.outcome().tryEmitError(error));
            behind.forEach(pending -> pending.outcome().tryEmitError(error));
        }

        /** After a call: the next batch, or the lane retires when nothing waits. */
        private void next() {
            List<Pending> batch;
            synchronized (this) {
                if (waiting.isEmpty()) {
                    inFlight = false;
                    retired = true;
                    lanes.remove(key, this);
                    return;
                }
                batch = take();
            }
            send(batch);
        }
    }

}
