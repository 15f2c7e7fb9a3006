package io.queuegate.store;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

import org.springframework.data.redis.connection.ReactiveSubscription;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.util.retry.Retry;
import reactor.util.retry.RetryBackoffSpec;

/**
 * The instance's Pub/Sub subscriptions to QueueGate's channel patterns: one Redis subscription per
 * pattern, however many listeners it has (the released channel has four), and one policy for
 * getting it back after a lost connection. Each listen is deferred, so a Redis that is down at
 * startup is retried like a lost connection and never fails the start.
 */
public final class Channels {

    /** How every subscription comes back: soon at first, then every 5 s, for as long as it takes. */
    public static final RetryBackoffSpec RESUBSCRIBE =
            Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(200)).maxBackoff(Duration.ofSeconds(5));

    private final ReactiveStringRedisTemplate redis;
    private final Map<String, Flux<? extends ReactiveSubscription.Message<String, String>>> patterns =
            new ConcurrentHashMap<>();

    public Channels(ReactiveStringRedisTemplate redis) {
        this.redis = redis;
    }

    /**
     * Hands {@code onMessage} the channel and the message of every message on {@code pattern} until
     * the returned subscription is disposed.
     */
    public Disposable listen(String pattern, BiConsumer<String, String> onMessage) {
        return listen(pattern, onMessage, () -> { });
    }

    /**
     * As {@link #listen(String, BiConsumer)}, and runs {@code onLost} each time the subscription
     * is lost, before it is made again: messages sent meanwhile were missed.
     */
    public Disposable listen(String pattern, BiConsumer<String, String> onMessage, Runnable onLost) {
        return shared(pattern)
                .doOnNext(message -> onMessage.accept(message.getChannel(), message.getMessage()))
                .retryWhen(RESUBSCRIBE.doBeforeRetry(signal -> onLost.run()))
                .subscribe();
    }

    private Flux<? extends ReactiveSubscription.Message<String, String>> shared(String pattern) {
        // share(): the first listener subscribes in Redis, the last one to leave unsubscribes; a
        // lost connection ends it for all, and the first to retry makes it again.
        return patterns.computeIfAbsent(pattern, p -> Flux.defer(() -> redis.listenToPattern(p)).share());
    }
}
