package io.queuegate.admission;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.github.benmanes.caffeine.cache.Caffeine;

import io.queuegate.store.Channels;
import io.queuegate.store.QueueKeys;

import org.springframework.context.SmartLifecycle;

import reactor.core.Disposable;

/**
 * Remembers, for at most {@code ttl} (1 s by default, never more), that a token holder was found
 * active, so their next requests pass without a Redis round trip. This is the one staleness the
 * design allows (docs/design.md): a bounded, documented staleness, and invalidation through Redis
 * on completion and leave. Every completion or leave is announced by {@code leave.lua} on
 * {@code qg:released:<pid>}; each instance drops that user at once, and the instance that
 * completed drops them before it even asks Redis. What the bound still allows: a session that
 * expires by time may pass for up to {@code ttl} longer, and a release announced while this
 * instance's subscription is down is honoured within {@code ttl}.
 * <p>
 * A holder who keeps coming is confirmed ahead of time: once a pass has less than a quarter of
 * {@code ttl} left, one request through it is told to have it confirmed ({@link Pass#CONFIRM}) and
 * goes on; {@link PassConfirmations} asks Redis, and the answer renews the pass for {@code ttl}
 * from when the question was sent, never past the session's end ({@link #confirmed}), or ends it
 * ({@link #ended}). So a busy shopper's requests do not wait for Redis, and every pass rests on
 * an answer from Redis at most {@code ttl} old. An answer changes only the pass it was asked for:
 * a pass forgotten meanwhile (a release heard) stays forgotten, one renewed meanwhile stays as the
 * newer answer left it.
 */
public class ActiveCache implements SmartLifecycle {

    /** Past this many entries the oldest go first rather than grow. */
    static final int MAX_ENTRIES = 200_000;

    /**
     * The least time a confirmation is given before its pass runs out: a gathering of
     * {@link PassConfirmations} and a round trip. A {@code ttl} under four times this confirms nothing.
     */
    static final Duration CONFIRMATION_TIME = Duration.ofMillis(100);

    /**
     * Announced instead of a user id when an operator changes a product ({@code admin.lua}): a
     * room that closes must not let anyone through on a remembered pass. Not a valid user id.
     */
    public static final String EVERYONE = "*";

    /** What a token holder's pass says of their request. */
    public enum Pass {
        /** No pass: Redis decides. */
        NONE,
        /** A pass: let through. */
        HOLDS,
        /** A pass, near its end: let through, and have it confirmed ({@link PassConfirmations#ask}). */
        CONFIRM
    }

    private final Channels channels;
    private final Clock clock;
    private final long ttlMillis;
    /** A pass with this little left is confirmed ahead of its end; 0: none is. */
    private final long confirmWithinMillis;
    private final Map<String, Entry> entries;
    private volatile Disposable releases;

    /**
     * @param until when the pass runs out (epoch ms, the gateway's clock)
     * @param confirming a confirmation of it is out
     */
    private record Entry(long until, boolean confirming) {
    }

    public ActiveCache(Channels channels, Clock clock, Duration ttl) {
        this.channels = channels;
        this.clock = clock;
        this.ttlMillis = ttl.toMillis();
        this.confirmWithinMillis = ttlMillis / 4 >= CONFIRMATION_TIME.toMillis() ? ttlMillis / 4 : 0;
        // Entries leave on the gateway's clock, the one every decision of the gateway reads, so a
        // test that moves it sees passes last exactly as long as it says.
        this.entries = Caffeine.newBuilder().maximumSize(MAX_ENTRIES)
                .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
                .expireAfterWrite(ttl.isZero() ? Duration.ofMillis(1) : ttl).<String, Entry>build().asMap();
    }

    public boolean isEnabled() {
        return ttlMillis > 0;
    }

    /**
     * The user's pass: none unless they were found active in the last {@code ttl}; {@link Pass#CONFIRM}
     * for one request once it has less than a quarter of {@code ttl} left, and then for none until
     * an answer renews it. Without an answer (Redis failed) the pass runs out as it is, and the next
     * request asks Redis itself.
     */
    public Pass pass(String productId, String userId) {
        String key = key(productId, userId);
        Entry entry = entries.get(key);
        long left = entry == null ? 0 : entry.until() - clock.millis();
        if (left <= 0) {
            return Pass.NONE;
        }
        if (entry.confirming() || left > confirmWithinMillis
                || !entries.replace(key, entry, new Entry(entry.until(), true))) {
            return Pass.HOLDS;
        }
        return Pass.CONFIRM;
    }

    /**
     * Redis found the user still active in a call sent at {@code sentAt}: their pass, if its
     * confirmation was out, lasts {@code ttl} from then, and not past the session's end.
     *
     * @param sessionEnd when the session ends (epoch ms)
     */
    public void confirmed(String productId, String userId, long sentAt, long sessionEnd) {
        Entry renewed = new Entry(Math.min(sentAt + ttlMillis, sessionEnd), false);
        entries.computeIfPresent(key(productId, userId), (key, entry) -> entry.confirming() ? renewed : entry);
    }

    /** Redis found the user no longer active: their pass, if its confirmation was out, ends. */
    public void ended(String productId, String userId) {
        entries.computeIfPresent(key(productId, userId), (key, entry) -> entry.confirming() ? null : entry);
    }

    public void remember(String productId, String userId) {
        if (!isEnabled()) {
            return;
        }
        entries.put(key(productId, userId), new Entry(clock.millis() + ttlMillis, false));
    }

    /** @param userId the user, or {@link #EVERYONE} for every user of the product */
    public void forget(String productId, String userId) {
        if (EVERYONE.equals(userId)) {
            String prefix = key(productId, "");
            entries.keySet().removeIf(key -> key.startsWith(prefix));
            return;
        }
        entries.remove(key(productId, userId));
    }

    /** Forgets everyone: Redis's data changed under the gateway (its epoch), so no pass remembered holds. */
    public void forgetAll() {
        entries.clear();
    }

    /** Whether a confirmation of the user's pass is out (for tests). */
    boolean confirming(String productId, String userId) {
        Entry entry = entries.get(key(productId, userId));
        return entry != null && entry.confirming();
    }

    @Override
    public void start() {
        if (!isEnabled()) {
            return;
        }
        releases = channels.listen(QueueKeys.RELEASED_PATTERN,
                (channel, message) -> forget(QueueKeys.productOfReleasedChannel(channel), message),
                // While unsubscribed, nothing can be trusted beyond this moment.
                entries::clear);
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

    private static String key(String productId, String userId) {
        return productId + '\u0000' + userId;
    }
}
