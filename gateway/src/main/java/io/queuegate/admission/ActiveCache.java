package io.queuegate.admission;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

import com.github.benmanes.caffeine.cache.Caffeine;
import io.queuegate.store.Channels;
import io.queuegate.store.QueueKeys;

import org.springframework.context.SmartLifecycle;

import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Remembers, for at most {@code ttl} (1 s by default, never more), that a token holder was found
 * active, so their next requests pass without a Redis round trip. This is the one staleness the
 * design allows (docs/design.md): a bounded, documented staleness, and invalidation through Redis
 * on completion and leave. Every completion or leave is announced by {@code leave.lua} on
 * {@code qg:released:<pid>}; each instance drops that user at once, and the instance that
 * completed drops them before it even asks Redis. What the bound still allows: a session that
 * expires by time may pass for up to {@code ttl} longer, and a release announced while this
 * instance's subscription is down is honoured within {@code ttl}.
 *
 * <p>A busy holder's pass is renewed before it ends: the first request in its last fifth
 * ({@link #claimsRenewal}) asks Redis, and the holder's other requests pass on the remembered pass
 * while that check is out, even once the pass's own end has come. So a pass may outlive
 * {@code ttl} by one Redis round trip, never more: a renewal starts only while the pass holds,
 * the others pass on it for at most the Redis timeout, and what it answers (a renewed pass, or
 * none) decides the next request. A release heard while any check is out ends the pass at once and
 * for good: a check that Redis answered before the release cannot bring the pass back.
 */
public class ActiveCache implements SmartLifecycle {

    /** Past this many entries the oldest go first rather than grow. */
    static final int MAX_ENTRIES = 200_000;

    /** A pass is renewed in its last fifth: long enough for a busy holder's next request to come. */
    private static final int RENEW_IN_LAST = 5;

    /** How long a renewal may take when the gateway is not told (the default Redis timeout). */
    private static final Duration ROUND_TRIP = Duration.ofSeconds(2);

    /**
     * Announced instead of a user id when an operator changes a product ({@code admin.lua}): a
     * room that closes must not let anyone through on a remembered pass. Not a valid user id.
     */
    public static final String EVERYONE = "*";

    private final Channels channels;
    private final Clock clock;
    private final long ttlMillis;
    private final Map<String, Long> activeUntil;
    /** The holders whose pass is being checked in Redis right now, each until the check's answer. */
    private final Map<String, Sinks.One<Admission>> checking = new ConcurrentHashMap<>();
    /** How long a renewal may keep a pass beyond its end: the Redis timeout, one round trip. */
    private final long roundTripMillis;
    /** The holders whose pass is being renewed before its end, each until when it may keep the pass. */
    private final Map<String, Long> renewing = new ConcurrentHashMap<>();
    /** When each holder (or {@code product + EVERYONE}) was last forgotten, while a check could still be out. */
    private final Map<String, Long> forgottenAt;
    private volatile long everyoneForgottenAt = Long.MIN_VALUE;
    private volatile Disposable releases;

    public ActiveCache(Channels channels, Clock clock, Duration ttl) {
        this(channels, clock, ttl, ROUND_TRIP);
    }

    /** @param roundTrip the longest a Redis call may take (its timeout): what a renewal may add to a pass */
    public ActiveCache(Channels channels, Clock clock, Duration ttl, Duration roundTrip) {
        this.channels = channels;
        this.clock = clock;
        this.ttlMillis = ttl.toMillis();
        this.roundTripMillis = roundTrip.toMillis();
        // Entries leave on the gateway's clock too; a pass itself is judged by its end, never by
        // whether its entry is still there, which outlives it only as long as a renewal may.
        this.activeUntil = Caffeine.newBuilder().maximumSize(MAX_ENTRIES)
                .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
                .expireAfterWrite(ttl.plus(roundTrip)).<String, Long>build().asMap();
        this.forgottenAt = Caffeine.newBuilder().maximumSize(MAX_ENTRIES)
                .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
                .expireAfterWrite(ttl.plus(roundTrip).multipliedBy(2)).<String, Long>build().asMap();
    }

    public boolean isEnabled() {
        return ttlMillis > 0;
    }

    /**
     * Whether the user was found active in the last {@code ttl}, or their pass is being renewed by
     * a check that started before it ended.
     */
    public boolean isActive(String productId, String userId) {
        String key = key(productId, userId);
        Long until = activeUntil.get(key);
        if (until == null) {
            return false;
        }
        long now = clock.millis();
        if (until > now) {
            return true;
        }
        Long renewedBy = renewing.get(key);
        return renewedBy != null && renewedBy > now;
    }

    /**
     * Whether this request is the one to renew the holder's pass: the pass holds, ends within its
     * last fifth, and nobody renews it yet. When so, the renewal is this request's: it must run its
     * check through {@link #renewal}, which ends it.
     */
    public boolean claimsRenewal(String productId, String userId) {
        String key = key(productId, userId);
        Long until = activeUntil.get(key);
        long now = clock.millis();
        if (until == null || until <= now || (until - now) * RENEW_IN_LAST > ttlMillis) {
            return false;
        }
        long keepsUntil = until + roundTripMillis;
        // One renewal at a time; one whose request went away unsubscribed lapses at its deadline.
        boolean[] claimed = {false};
        renewing.compute(key, (k, current) -> {
            if (current != null && current > now) {
                return current;
            }
            claimed[0] = true;
            return keepsUntil;
        });
        return claimed[0];
    }

    /**
     * Runs the check that renews a pass this request claimed ({@link #claimsRenewal}); the
     * holder's other requests pass meanwhile. However the check ends, the renewal does.
     */
    public Mono<Admission> renewal(String productId, String userId, Supplier<Mono<Admission>> check) {
        String key = key(productId, userId);
        return unlessForgotten(productId, key, check).doFinally(signal -> renewing.remove(key));
    }

    /**
     * Runs {@code check}; a holder forgotten while it was out (a release, an operator's change)
     * stays forgotten, whatever the check remembered from an answer Redis gave before.
     */
    private Mono<Admission> unlessForgotten(String productId, String key, Supplier<Mono<Admission>> check) {
        return Mono.defer(() -> {
            long asked = clock.millis();
            return Mono.defer(check).doFinally(signal -> {
                if (forgottenSince(productId, key, asked)) {
                    activeUntil.remove(key);
                }
            });
        });
    }

    private boolean forgottenSince(String productId, String key, long asked) {
        Long holder = forgottenAt.get(key);
        Long everyone = forgottenAt.get(key(productId, EVERYONE));
        return holder != null && holder >= asked || everyone != null && everyone >= asked
                || everyoneForgottenAt >= asked;
    }

    public void remember(String productId, String userId) {
        if (!isEnabled()) {
            return;
        }
        activeUntil.put(key(productId, userId), clock.millis() + ttlMillis);
    }

    /**
     * Checks a holder's pass one request at a time. The first request runs {@code check} (which
     * asks Redis); a request of the same holder that comes meanwhile waits for that answer and
     * hands it to {@code afterAnother}, empty when the first went away without one. A browser
     * loading a page sends several requests at once; when the pass ran out, each would otherwise
     * ask Redis the same question, and, with Redis stalled, wait out its own timeout in turn.
     */
    public Mono<Admission> oneCheckAtATime(String productId, String userId, Supplier<Mono<Admission>> check,
            Function<Optional<Admission>, Mono<Admission>> afterAnother) {
        return Mono.defer(() -> {
            String key = key(productId, userId);
            Sinks.One<Admission> mine = Sinks.one();
            Sinks.One<Admission> inFlight = checking.putIfAbsent(key, mine);
            if (inFlight != null) {
                return inFlight.asMono().map(Optional::of).defaultIfEmpty(Optional.empty()).flatMap(afterAnother);
            }
            AtomicReference<Admission> answer = new AtomicReference<>();
            // Whatever the end (an answer, a failure, even one thrown, the client gone), the
            // waiters go on; after the first request's own continuation, which they would delay.
            return unlessForgotten(productId, key, check).doOnNext(answer::set).doFinally(signal -> {
                checking.remove(key, mine);
                Admission answered = answer.get();
                if (answered == null) {
                    mine.tryEmitEmpty();
                }
                else {
                    mine.tryEmitValue(answered);
                }
            });
        });
    }

    /** @param userId the user, or {@link #EVERYONE} for every user of the product */
    public void forget(String productId, String userId) {
        forgottenAt.put(key(productId, userId), clock.millis());
        if (EVERYONE.equals(userId)) {
            String prefix = key(productId, "");
            activeUntil.keySet().removeIf(key -> key.startsWith(prefix));
            renewing.keySet().removeIf(key -> key.startsWith(prefix));
            return;
        }
        activeUntil.remove(key(productId, userId));
        renewing.remove(key(productId, userId));
    }

    /** Forgets everyone: Redis's data changed under the gateway (its epoch), so no pass remembered holds. */
    public void forgetAll() {
        everyoneForgottenAt = clock.millis();
        activeUntil.clear();
        renewing.clear();
    }

    @Override
    public void start() {
        if (!isEnabled()) {
            return;
        }
        releases = channels.listen(QueueKeys.RELEASED_PATTERN,
                (channel, message) -> forget(QueueKeys.productOfReleasedChannel(channel), message),
                // While unsubscribed, nothing can be trusted beyond this moment.
                this::forgetAll);
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
