package io.queuegate.recovery;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.queuegate.events.QueueEvents;
import io.queuegate.store.Channels;
import io.queuegate.store.QueueKeys;

import org.springframework.context.SmartLifecycle;

import reactor.core.Disposable;

/**
 * What this instance knows of the sessions of every product, in case Redis forgets them: each
 * shopper's last admission and last release heard of, from Redis's own answers here (a session
 * and its exact end), the admissions every instance announces ({@code qg:admitted:<pid>}) and the
 * completions and leaves ({@code qg:released:<pid>}). Every instance hears every announcement,
 * so each one knows nearly all of them. After a loss it is merged into each product
 * ({@code recover.lua}): the sessions known to run come back at once and count against
 * max-active before anyone new is admitted, and what a release proves is never undone by a token
 * signed before it (a session that ended, a place given up). Bounded: past
 * {@link #MAX_ENTRIES} the oldest go first; an entry is kept for {@link #KEPT_FOR}, longer than a
 * session and a token live.
 */
public final class SessionLedger implements QueueEvents, SmartLifecycle {

    static final int MAX_ENTRIES = 200_000;

    static final Duration KEPT_FOR = Duration.ofHours(3);

    /** What {@code admin.lua} announces as released when an operator changed a product: no user. */
    private static final String EVERYONE = "*";

    /**
     * One shopper's last session on one product, as heard of.
     *
     * @param admittedAt when its admission was last heard of (epoch ms), 0 when never
     * @param endsAt its end as Redis last said it (epoch ms), 0 when unknown (only announced)
     * @param endedAt when its end was last heard of (a completion, a leave), 0 when never
     */
    public record Session(long admittedAt, long endsAt, long endedAt) {

        /** Whether the last thing heard of it was an admission. */
        public boolean running() {
            return admittedAt > endedAt;
        }
    }

    /** A running session to bring back, with its end (0 when unknown) and when it was admitted. */
    public record Running(String userId, long endsAt, long admittedAt) {
    }

    private record Key(String productId, String userId) {
    }

    private final Channels channels;
    private final Clock clock;
    private final Map<String, Set<String>> byProduct = new ConcurrentHashMap<>();
    private final Cache<Key, Session> sessions;
    private volatile Disposable releases;

    public SessionLedger(Channels channels, Clock clock) {
        this.channels = channels;
        this.clock = clock;
        this.sessions = Caffeine.newBuilder()
                .maximumSize(MAX_ENTRIES)
                .expireAfterWrite(KEPT_FOR)
                .executor(Runnable::run)
                .removalListener((Key key, Session session, com.github.benmanes.caffeine.cache.RemovalCause cause) -> {
                    if (key != null && cause.wasEvicted()) {
                        forgetIndex(key);
                    }
                })
                .build();
    }

    /** Redis answered that the user holds a place until {@code endsAt}. */
    @Override
    public void session(String productId, String userId, long endsAt) {
        long now = clock.millis();
        update(productId, userId, before -> before == null || !before.running()
                ? new Session(now, endsAt, before == null ? 0 : before.endedAt())
                : new Session(before.admittedAt(), endsAt, before.endedAt()));
    }

    /** These users' admission to the product was announced (by any instance). */
    public void announced(String productId, String[] users) {
        long now = clock.millis();
        for (String user : users) {
            update(productId, user, before -> before == null || !before.running()
                    ? new Session(now, 0, before == null ? 0 : before.endedAt()) : before);
        }
    }

    /** The user's session (or place in line) ended: a completion or a leave, announced by any instance. */
    public void released(String productId, String userId) {
        if (EVERYONE.equals(userId)) {
            return;
        }
        long now = clock.millis();
        update(productId, userId, before -> new Session(before == null ? 0 : before.admittedAt(),
                before == null ? 0 : before.endsAt(), Math.max(now, before == null ? 0 : before.admittedAt() + 1)));
    }

    /**
     * The user's place or session ended at {@code at} (epoch ms), as Redis's record of ends says: for
     * an instance that did not hear it (it started later). A later admission stays running.
     */
    public void endedAt(String productId, String userId, long at) {
        update(productId, userId, before -> before == null ? new Session(0, 0, at)
                : at <= before.endedAt() ? before : new Session(before.admittedAt(), before.endsAt(), at));
    }

    /** What is known of the user's last session on the product, or {@code null}. */
    public Session of(String productId, String userId) {
        return sessions.getIfPresent(new Key(productId, userId));
    }

    /**
     * Whether the user was admitted, or their session or place ended, after {@code signedAt}: a
     * token signed before says less than what happened since.
     */
    public boolean changedSince(String productId, String userId, Instant signedAt) {
        Session session = of(productId, userId);
        return session != null && Math.max(session.admittedAt(), session.endedAt()) > signedAt.toEpochMilli();
    }

    /** Whether the user's session or place was heard to end after {@code signedAt}. */
    public boolean endedSince(String productId, String userId, Instant signedAt) {
        Session session = of(productId, userId);
        return session != null && session.endedAt() > signedAt.toEpochMilli();
    }

    /** The product's sessions known to run. */
    public List<Running> running(String productId) {
        List<Running> running = new ArrayList<>();
        each(productId, (user, session) -> {
            if (session.running()) {
                running.add(new Running(user, session.endsAt(), session.admittedAt()));
            }
        });
        return running;
    }

    /** The product's sessions and places heard to end: user to when. */
    public Map<String, Long> ended(String productId) {
        Map<String, Long> ended = new HashMap<>();
        each(productId, (user, session) -> {
            if (!session.running() && session.endedAt() > 0) {
                ended.put(user, session.endedAt());
            }
        });
        return ended;
    }

    /** Forgets every session: Redis's data were replaced on purpose (a restore, a test's flush). */
    public void forgetAll() {
        sessions.invalidateAll();
        byProduct.clear();
    }

    /** Every product the ledger knows a session of. */
    public Set<String> products() {
        return Set.copyOf(byProduct.keySet());
    }

    @Override
    public void start() {
        releases = channels.listen(QueueKeys.RELEASED_PATTERN,
                (channel, message) -> released(QueueKeys.productOfReleasedChannel(channel), message));
    }

    @Override
    public void stop() {
        Disposable current = releases;
        if (current != null) {
            current.dispose();
        }
        releases = null;
    }

    @Override
    public boolean isRunning() {
        return releases != null;
    }

    private void update(String productId, String userId,
            java.util.function.UnaryOperator<Session> change) {
        Key key = new Key(productId, userId);
        sessions.asMap().compute(key, (k, before) -> change.apply(before));
        byProduct.computeIfAbsent(productId, id -> ConcurrentHashMap.newKeySet()).add(userId);
    }

    private void each(String productId, java.util.function.BiConsumer<String, Session> action) {
        Set<String> users = byProduct.get(productId);
        if (users == null) {
            return;
        }
        for (String user : users) {
            Session session = sessions.getIfPresent(new Key(productId, user));
            if (session == null) {
                forgetIndex(new Key(productId, user));
            }
            else {
                action.accept(user, session);
            }
        }
    }

    private void forgetIndex(Key key) {
        byProduct.computeIfPresent(key.productId(), (id, users) -> {
            users.remove(key.userId());
            return users.isEmpty() ? null : users;
        });
    }
}
