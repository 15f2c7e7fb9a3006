package io.queuegate.live;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import io.queuegate.store.QueueKeys;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.util.retry.Retry;

/**
 * Tells this instance's live connections that users were admitted. The promotion script
 * announces every admission on {@code qg:admitted:<pid>}, whichever instance or scheduler made
 * it; this instance holds one subscription for all products, from start to stop, and hands each
 * announcement to the connections of that product, so no connection polls Redis to learn of its
 * turn. The subscription is not opened per connection: Redis confirms a subscription only some
 * time after it is asked for, and an admission announced in between would be missed.
 */
public class AdmissionNotifier implements SmartLifecycle {

    private final ReactiveStringRedisTemplate redis;
    private final Sinks.Many<Admitted> announcements = Sinks.many().multicast().directBestEffort();
    private volatile Disposable subscription;

    public AdmissionNotifier(ReactiveStringRedisTemplate redis) {
        this.redis = redis;
    }

    /** The users admitted to one product from now on, in the batches the script announced. */
    public Flux<List<String>> admissions(String productId) {
        return announcements.asFlux().filter(admitted -> productId.equals(admitted.productId())).map(Admitted::users);
    }

    @Override
    public void start() {
        subscription = redis.listenToPattern(QueueKeys.ADMITTED_PATTERN)
                .map(message -> new Admitted(QueueKeys.productOfAdmittedChannel(message.getChannel()),
                        Arrays.asList(message.getMessage().split(" "))))
                .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(200)).maxBackoff(Duration.ofSeconds(5)))
                .subscribe(announcements::tryEmitNext);
    }

    @Override
    public void stop() {
        Disposable current = subscription;
        if (current != null) {
            current.dispose();
        }
        subscription = null;
    }

    @Override
    public boolean isRunning() {
        return subscription != null;
    }

    private record Admitted(String productId, List<String> users) {
    }
}
