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
 * {@code ttl} left, one of their requests asks for a confirmation ({@link #confirmationDue}) and
 * goes on, and Redis's answer renews the pass or ends it ({@link #confirmed}). So a busy shopper's
 * requests do not wait for Redis, and every pass still rests on an answer from Redis at most
 * {@code ttl} old. A pass forgotten while its confirmation was out (a release heard meanwhile)
 * stays forgotten, whatever the confirmation says.
 */
public class ActiveCache implements SmartLifecycle {

    /** Past this many entries the oldest go first rather than grow. */
    static final int MAX_ENTRIES = 200_000;

    /**
     * Announced instead of a user id when an operator changes a product ({@code admin.lua}): a
     * room that closes must not let anyone through on a remembered pass. Not a valid user id.
     */
    public static final String EVERYONE = "*";

    private final Channels channels;
    private final Clock clock;
    private final long ttlMillis;
    /** A pass with this little left is confirmed ahead of its end: time enough for a round trip. */
    private final long confirmWithinMillis;
    private final Map<String, Pass> passes;
    private volatile Disposable releases;

    /**
     * @param until when the pass runs out (epoch ms, the gateway's clock)
     * @param confirming a confirmation of it is out
     */
    private record Pass(long until, boolean confirming) {
    }

    public ActiveCache(Channels channels, Clock clock, Duration ttl) {
        this.channels = channels;
        this.clock = clock;
        this.ttlMillis = ttl.toMillis();
        this.confirmWithinMillis = ttlMillis / 4;
        // Entries leave on the gateway's clock too: a pass is only ever judged by it.
        this.passes = Caffeine.newBuilder().maximumSize(MAX_ENTRIES)
                .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
                .expireAfterWrite(ttl.isZero() ? Duration.ofMillis(1) : ttl).<String, Pass>build().asMap();
    }

    public boolean isEnabled() {
        return ttlMillis > 0;
    }

    /** Whether the user was found active in the last {@code ttl}. */
    public boolean isActive(String productId, String userId) {
        Pass pass = passes.get(key(productId, userId));
        return pass != null && pass.until() > clock.millis();
    }

    /**
     * Whether the user's pass, still good, is to be confirmed in Redis now: {@code true} for one
     * caller once the pass has less than a quarter of {@code ttl} left, and then for nobody until
     * {@link #confirmed} renews it. The caller asks Redis and tells {@link #confirmed} the answer;
     * without an answer (Redis failed) the pass runs out as it is, and the next request asks Redis
     * itself.
     */
    public boolean confirmationDue(String productId, String userId) {
        String key = key(productId, userId);
        Pass pass = passes.get(key);
        if (pass == null || pass.confirming()) {
            return false;
        }
        long left = pass.until() - clock.millis();
        return left > 0 && left <= confirmWithinMillis && passes.replace(key, pass, new Pass(pass.until(), true));
    }

    /**
     * Redis answered a confirmation: the user is still active (the pass is renewed from now) or
     * not (it ends). A pass forgotten since the confirmation was asked for is not brought back.
     */
    public void confirmed(String productId, String userId, boolean active) {
        long until = clock.millis() + ttlMillis;
        passes.computeIfPresent(key(productId, userId), (key, pass) -> active ? new Pass(until, false) : null);
    }

    public void remember(String productId, String userId) {
        if (!isEnabled()) {
            return;
        }
        passes.put(key(productId, userId), new Pass(clock.millis() + ttlMillis, false));
    }

    /** @param userId the user, or {@link #EVERYONE} for every user of the product */
    public void forget(String productId, String userId) {
        if (EVERYONE.equals(userId)) {
            String prefix = key(productId, "");
            passes.keySet().removeIf(key -> key.startsWith(prefix));
            return;
        }
        passes.remove(key(productId, userId));
    }

    /** Forgets everyone: Redis's data changed under the gateway (its epoch), so no pass remembered holds. */
    public void forgetAll() {
        passes.clear();
    }

    @Override
    public void start() {
        if (!isEnabled()) {
            return;
        }
        releases = channels.listen(QueueKeys.RELEASED_PATTERN,
                (channel, message) -> forget(QueueKeys.productOfReleasedChannel(channel), message),
                // While unsubscribed, nothing can be trusted beyond this moment.
                passes::clear);
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
