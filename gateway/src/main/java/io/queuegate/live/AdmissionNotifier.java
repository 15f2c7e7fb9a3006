package io.queuegate.live;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

import io.queuegate.store.Channels;
import io.queuegate.store.QueueKeys;

import org.springframework.context.SmartLifecycle;

import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Tells this instance's live connections that their shopper was admitted. The promotion script
 * announces every admission on {@code qg:admitted:<pid>}, whichever instance or scheduler made
 * it; this instance holds one subscription for all products, from start to stop, and hands each
 * admitted user's announcement to the connections waiting for that user (a lookup per admitted
 * user, whatever the number of connections), so no connection polls Redis to learn of its turn.
 * The subscription is not opened per connection: Redis confirms a subscription only some time
 * after it is asked for, and an admission announced in between would be missed.
 */
public class AdmissionNotifier implements SmartLifecycle {

    private final Channels channels;
    private final BiConsumer<String, String[]> onAdmissions;
    private final Map<Watched, Set<Sinks.Empty<Void>>> watchers = new ConcurrentHashMap<>();
    private volatile Disposable subscription;

    /** @param onAdmissions told the product and the users of every announcement */
    public AdmissionNotifier(Channels channels, BiConsumer<String, String[]> onAdmissions) {
        this.channels = channels;
        this.onAdmissions = onAdmissions;
    }

    /**
     * Completes when the user's admission to the product is announced (from the moment of
     * subscription on); cancelling it stops the watch.
     */
    public Mono<Void> admission(String productId, String userId) {
        return Mono.defer(() -> {
            Watched watched = new Watched(productId, userId);
            Sinks.Empty<Void> sink = Sinks.empty();
            // Added and removed inside the map's lock on the key, so no sink lands in a set just dropped.
            watchers.compute(watched, (key, sinks) -> {
                Set<Sinks.Empty<Void>> all = sinks != null ? sinks : ConcurrentHashMap.newKeySet();
                all.add(sink);
                return all;
            });
            return sink.asMono().doFinally(signal -> watchers.computeIfPresent(watched, (key, sinks) -> {
                sinks.remove(sink);
                return sinks.isEmpty() ? null : sinks;
            }));
        });
    }

    private void announced(String productId, String users) {
        String[] admitted = users.split(" ");
        onAdmissions.accept(productId, admitted);
        for (String userId : admitted) {
            Set<Sinks.Empty<Void>> sinks = watchers.get(new Watched(productId, userId));
            if (sinks != null) {
                sinks.forEach(Sinks.Empty::tryEmitEmpty);
            }
        }
    }

    @Override
    public void start() {
        subscription = channels.listen(QueueKeys.ADMITTED_PATTERN,
                (channel, message) -> announced(QueueKeys.productOfAdmittedChannel(channel), message));
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

    private record Watched(String productId, String userId) {
    }
}
