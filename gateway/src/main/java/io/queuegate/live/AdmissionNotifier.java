package io.queuegate.live;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import io.queuegate.store.QueueKeys;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import reactor.core.publisher.Flux;
import reactor.util.retry.Retry;

/**
 * Tells this instance's live connections that users were admitted. The promotion script
 * announces every admission on {@code qg:admitted:<pid>}, whichever instance or scheduler made
 * it; this instance holds one subscription for all products (opened with the first live
 * connection, closed with the last) and hands each announcement to the connections of that
 * product, so no connection polls Redis to learn of its turn.
 */
public class AdmissionNotifier {

    private final Flux<Admitted> announcements;

    public AdmissionNotifier(ReactiveStringRedisTemplate redis) {
        this.announcements = redis.listenToPattern(QueueKeys.ADMITTED_PATTERN)
                .map(message -> new Admitted(QueueKeys.productOfAdmittedChannel(message.getChannel()),
                        Arrays.asList(message.getMessage().split(" "))))
                .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(200)).maxBackoff(Duration.ofSeconds(5)))
                .share();
    }

    /** The users admitted to one product from now on, in the batches the script announced. */
    public Flux<List<String>> admissions(String productId) {
        return announcements.filter(admitted -> productId.equals(admitted.productId())).map(Admitted::users);
    }

    private record Admitted(String productId, List<String> users) {
    }
}
