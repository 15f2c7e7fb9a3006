package io.queuegate.admission;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import io.queuegate.room.JoinTerms;
import io.queuegate.room.Joined;
import io.queuegate.room.Joiner;
import io.queuegate.room.PlaceStatus;
import io.queuegate.room.Placement;
import io.queuegate.room.Reclaim;
import io.queuegate.store.PlaceStore;
import io.queuegate.store.ProductRules;

import org.springframework.dao.QueryTimeoutException;

import reactor.core.publisher.Mono;

/**
 * The store admission asks, kept in memory, for the admission decision's unit tests: a room with
 * {@code max-active} places and a line in ticket order, sessions that end by time, completion
 * claims and proof-of-work marks taken once, and a join's terms for a new place. Only what a plain
 * route needs: no sale times, pace, invitations, stock or recovery (those stay with the script tests).
 * {@link PlaceStoreContract} holds it to the answers {@code join.lua}, {@code status.lua},
 * {@code pass.lua} and {@code leave.lua} give on a real Redis.
 */
public final class InMemoryPlaceStore implements PlaceStore {

    private final Clock clock;
    private final Map<String, Product> products = new HashMap<>();
    private final Set<String> configured;
    private final AtomicInteger calls = new AtomicInteger();
    private volatile boolean failing;

    public InMemoryPlaceStore(Clock clock, Set<String> configured) {
        this.clock = clock;
        this.configured = Set.copyOf(configured);
    }

    /** How many calls reached the store, as a Redis round trip each would. */
    public int calls() {
        return calls.get();
    }

    /** From now on every call fails as Redis does when it cannot answer in time. */
    public void failing(boolean failing) {
        this.failing = failing;
    }

    @Override
    public boolean isConfigured(String productId) {
        return configured.contains(productId);
    }

    @Override
    public long millis() {
        return clock.millis();
    }

    @Override
    public Mono<Joined> join(String productId, ProductRules rules, Joiner joiner) {
        return call(() -> product(productId).join(rules, joiner, clock.millis()));
    }

    @Override
    public Mono<Long> confirmPass(String productId, ProductRules rules, String userId) {
        return call(() -> product(productId).pass(rules, userId, clock.millis())).mapNotNull(end -> end > 0 ? end : null);
    }

    @Override
    public Mono<PlaceStatus> status(String productId, String userId, Reclaim reclaim) {
        return call(() -> product(productId).status(userId, clock.millis()));
    }

    @Override
    public Mono<Boolean> complete(String productId, String userId, Long unitsLeft, long forwardedAt) {
        return leave(productId, userId);
    }

    @Override
    public Mono<Boolean> endWithoutSale(String productId, String userId, Long unitsLeft, long forwardedAt) {
        return leave(productId, userId);
    }

    @Override
    public Mono<Boolean> releaseCompletion(String productId, String userId, String claim) {
        return call(() -> product(productId).claims.remove(userId, claim));
    }

    @Override
    public Mono<Boolean> leave(String productId, String userId) {
        return call(() -> product(productId).release(userId, clock.millis()));
    }

    @Override
    public Mono<Boolean> unknown(String productId, String userId) {
        return call(() -> {
            boolean held = product(productId).release(userId, clock.millis());
            if (!isConfigured(productId) && product(productId).holdsNobody()) {
                products.remove(productId);
            }
            return held;
        });
    }

    @Override
    public Mono<Long> stockSaid(String productId, long unitsLeft, long forwardedAt) {
        return call(() -> -1L);
    }

    /** One call, made when subscribed (as a script call is sent), not when the {@code Mono} is built. */
    private <T> Mono<T> call(java.util.function.Supplier<T> work) {
        return Mono.defer(() -> {
            synchronized (this) {
                calls.incrementAndGet();
                if (failing) {
                    return Mono.error(new QueryTimeoutException("Redis command timed out (in-memory store set to fail)"));
                }
                return Mono.just(work.get());
            }
        });
    }

    private Product product(String productId) {
        return products.computeIfAbsent(productId, id -> new Product());
    }

    /** One product's room: admitted users to their session's end, the line in ticket order. */
    private static final class Product {

        private final Map<String, Long> active = new HashMap<>();
        private final Map<String, String> claims = new HashMap<>();
        private final LinkedHashMap<String, Long> line = new LinkedHashMap<>();
        private final Set<String> marks = new HashSet<>();
        private long lastTicket;
        private ProductRules rules;

        Joined join(ProductRules given, Joiner joiner, long now) {
            rules = given;
            String user = joiner.userId();
            endSessions(now);
            Long end = active.get(user);
            if (end != null) {
                return admitted(user, joiner.claim(), end, false);
            }
            boolean enqueued = false;
            if (!line.containsKey(user)) {
                JoinTerms terms = joiner.terms();
                if (terms.completing()) {
                    return refused(Placement.State.SESSION_ENDED);
                }
                if (terms.unpaid()) {
                    return refused(Placement.State.CHALLENGE_REQUIRED);
                }
                if (terms.limited()) {
                    return refused(Placement.State.JOIN_LIMITED);
                }
                if (joiner.challengeMark() != null && !marks.add(joiner.challengeMark())) {
                    return refused(Placement.State.CHALLENGE_USED);
                }
                line.put(user, ++lastTicket);
                enqueued = true;
            }
            fill(now);
            end = active.get(user);
            if (end != null) {
                return admitted(user, joiner.claim(), end, enqueued);
            }
            long ticket = line.get(user);
            return new Joined(new Placement(Placement.State.WAITING, rank(user), 0), enqueued, ticket, null);
        }

        PlaceStatus status(String user, long now) {
            // As status.lua: ended sessions no longer count, but nobody is admitted by asking.
            expire(now);
            Duration abandonAfter = rules == null ? Duration.ZERO : rules.abandonAfter();
            if (active.containsKey(user)) {
                return new PlaceStatus(new Placement(Placement.State.ACTIVE, 0, 0), null, abandonAfter, false,
                        null, null);
            }
            if (line.containsKey(user)) {
                return new PlaceStatus(new Placement(Placement.State.WAITING, rank(user), 0), null,
                        abandonAfter, false, line.get(user), null);
            }
            return new PlaceStatus(new Placement(Placement.State.NOT_FOUND, 0, 0), null, abandonAfter, false,
                    null, null);
        }

        /**
         * As pass.lua behind ProductQueues: the session's end while it lasts, under the rules the
         * last join stored, else 0; reads only (no room modes here).
         */
        long pass(ProductRules given, String user, long now) {
            if (!given.equals(rules)) {
                return 0;
            }
            Long end = active.get(user);
            return end != null && end > now ? end : 0;
        }

        boolean release(String user, long now) {
            endSessions(now);
            boolean held = active.remove(user) != null | line.remove(user) != null;
            claims.remove(user);
            if (held) {
                fill(now);
            }
            return held;
        }

        boolean holdsNobody() {
            return active.isEmpty() && line.isEmpty();
        }

        private Joined admitted(String user, String claim, long end, boolean enqueued) {
            String held = claim == null ? null : claims.putIfAbsent(user, claim);
            if (held != null && !held.equals(claim)) {
                return refused(Placement.State.COMPLETING);
            }
            return new Joined(new Placement(Placement.State.ACTIVE, 0, 0), enqueued, null, null, end, null);
        }

        private static Joined refused(Placement.State state) {
            return new Joined(new Placement(state, 0, 0), false, null, null);
        }

        private void fill(long now) {
            Iterator<String> next = line.keySet().iterator();
            while (active.size() < rules.maxActive() && next.hasNext()) {
                active.put(next.next(), now + rules.sessionTtl().toMillis());
                next.remove();
            }
        }

        /** Ended sessions go, and their places are filled (as a join or a release does). */
        private void endSessions(long now) {
            expire(now);
            if (rules != null) {
                fill(now);
            }
        }

        private void expire(long now) {
            active.values().removeIf(end -> end <= now);
            claims.keySet().retainAll(active.keySet());
        }

        private long rank(String user) {
            long rank = 1;
            for (String ahead : line.keySet()) {
                if (ahead.equals(user)) {
                    return rank;
                }
                rank++;
            }
            throw new IllegalStateException(user + " is not in line");
        }
    }
}
