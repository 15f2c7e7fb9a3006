package io.queuegate.store;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.springframework.dao.QueryTimeoutException;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Group commit for a script that decides many users of one product in one call: while one call
 * for a lane (a product, and whatever else its calls share) is on its way to Redis, the users that
 * arrive for the same lane wait and go together in the next call. A quiet product's user goes at
 * once, alone; in a storm one call carries up to {@value #MAX_BATCH} users, and the call's fixed
 * costs to Redis (the script, the product's settings, a round trip) are paid once for all of them.
 * Each user is still decided in turn by the script, exactly as if alone; a call that fails fails
 * every user it carried and every user waiting behind it.
 *
 * @param <K> the lane: the users of one call share it
 * @param <I> what one user brings to the call
 * @param <O> the call's answer for one user
 */
final class GroupCommit<K, I, O> {

    /** The most users one call carries: a join holds Redis for about 15 µs each. */
    static final int MAX_BATCH = 64;

    /**
     * The most users that wait for a lane's next calls. Beyond it Redis is not keeping up, and a
     * request answered at once as a Redis failure (its route's {@code on-redis-failure}) is better
     * than one that waits behind many calls.
     */
    static final int MAX_WAITING = 16 * MAX_BATCH;

    /** Sends a batch: the users in order, to one call of the script, which answers each in the same order. */
    interface Sender<K, I, O> {
        Mono<List<O>> send(K lane, List<I> users);
    }

    private final Map<K, Lane> lanes = new ConcurrentHashMap<>();
    private final Sender<K, I, O> sender;
    private final String what;
    private final Function<K, String> productOf;

    /**
     * @param what what waits, in the words of the error a full lane answers ("joins")
     * @param productOf the product of a lane, for that error
     */
    GroupCommit(Sender<K, I, O> sender, String what, Function<K, String> productOf) {
        this.sender = sender;
        this.what = what;
        this.productOf = productOf;
    }

    /** The user's answer, from the next call for the lane; nothing is sent until subscribed. */
    Mono<O> submit(K key, I user) {
        return Mono.defer(() -> {
            Sinks.One<O> outcome = Sinks.one();
            Pending<I, O> pending = new Pending<>(user, outcome);
            Lane lane = lanes.computeIfAbsent(key, Lane::new);
            while (!lane.offer(pending)) {
                // The lane retired between the lookup and the offer: a fresh one takes it.
                lanes.remove(key, lane);
                lane = lanes.computeIfAbsent(key, Lane::new);
            }
            return outcome.asMono();
        });
    }

    /** How many lanes are open (for tests). */
    int lanes() {
        return lanes.size();
    }

    private record Pending<I, O>(I user, Sinks.One<O> outcome) {
    }

    /** One lane's queue of users, with at most one call in flight. */
    private final class Lane {

        private final K key;
        private final ArrayDeque<Pending<I, O>> waiting = new ArrayDeque<>();
        private boolean inFlight;
        private boolean retired;

        Lane(K key) {
            this.key = key;
        }

        /** @return false when the lane has retired and takes nothing more */
        boolean offer(Pending<I, O> pending) {
            List<Pending<I, O>> batch;
            synchronized (this) {
                if (retired) {
                    return false;
                }
                if (waiting.size() >= MAX_WAITING) {
                    pending.outcome().tryEmitError(new QueryTimeoutException("Redis is not keeping up: "
                            + MAX_WAITING + " " + what + " of product " + productOf.apply(key) + " wait"));
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
        private List<Pending<I, O>> take() {
            List<Pending<I, O>> batch = new ArrayList<>(Math.min(waiting.size(), MAX_BATCH));
            while (!waiting.isEmpty() && batch.size() < MAX_BATCH) {
                batch.add(waiting.poll());
            }
            return batch;
        }

        private void send(List<Pending<I, O>> batch) {
            List<I> users = batch.stream().map(Pending::user).toList();
            Mono<List<O>> call;
            try {
                call = sender.send(key, users);
            }
            catch (RuntimeException ex) {
                call = Mono.error(ex);
            }
            call.subscribe(answers -> {
                if (answers.size() != batch.size()) {
                    failAll(batch, new IllegalStateException("the script answered " + answers.size() + " of "
                            + batch.size() + " " + what + " of product " + productOf.apply(key)));
                    return;
                }
                for (int i = 0; i < batch.size(); i++) {
                    batch.get(i).outcome().tryEmitValue(answers.get(i));
                }
            }, error -> failAll(batch, error), this::next);
        }

        /**
         * A failed call fails its batch and every user waiting behind it, and retires the lane:
         * each would otherwise wait out its own failing call in turn, far past the Redis timeout.
         */
        private void failAll(List<Pending<I, O>> batch, Throwable error) {
            List<Pending<I, O>> behind;
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
            List<Pending<I, O>> batch;
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
