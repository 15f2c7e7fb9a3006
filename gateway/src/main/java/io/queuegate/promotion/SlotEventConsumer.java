package io.queuegate.promotion;

import java.time.Duration;
import java.util.UUID;

import io.queuegate.events.QueueEvents;
import io.queuegate.events.RedisOperation;
import io.queuegate.store.ProductQueues;
import io.queuegate.store.QueueKeys;
import io.queuegate.store.RedisFailures;
import io.queuegate.store.SlotEventStream;
import io.queuegate.store.script.PromoteScript;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.stream.Consumer;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.stream.StreamReceiver;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code promotion: stream}: slot-free events go to the stream {@code qg:slot-events}, read by
 * one consumer group shared by every gateway instance. An event is acknowledged only after its
 * product was promoted, and events that a dead instance read but never acknowledged are claimed
 * by the living ones, so none is lost while an instance is down.
 */
public class SlotEventConsumer extends EventSubscription {

    /** The consumer group all instances join. */
    public static final String GROUP = "queuegate";

    private static final Log log = LogFactory.getLog(SlotEventConsumer.class);
    private static final int BATCH = 100;

    private final ProductQueues store;
    private final SlotEventStream stream;
    private final QueueEvents events;
    private final StreamReceiver<String, MapRecord<String, String, String>> receiver;
    private final String consumer;
    private final Duration claimIdle;

    public SlotEventConsumer(ReactiveRedisConnectionFactory connections, ProductQueues store, SlotEventStream stream,
            QueueEvents events, Duration claimIdle) {
        super(log);
        this.store = store;
        this.stream = stream;
        this.events = events;
        this.claimIdle = claimIdle;
        this.consumer = "gateway-" + UUID.randomUUID();
        this.receiver = StreamReceiver.create(connections, StreamReceiver.StreamReceiverOptions.builder()
                .pollTimeout(Duration.ofSeconds(1))
                .batchSize(BATCH)
                .build());
    }

    @Override
    protected Flux<?> events() {
        Flux<Long> fresh = receiver.receive(Consumer.from(GROUP, consumer),
                        StreamOffset.create(QueueKeys.SLOT_EVENTS, ReadOffset.lastConsumed()))
                .concatMap(record -> handle(record.getId().getValue(), record.getValue().get("pid")));
        // Checking every claimIdle keeps an orphaned event waiting at most about twice that long.
        Flux<Long> orphaned = Flux.interval(claimIdle, claimIdle)
                .onBackpressureDrop()
                .concatMap(tick -> claimOrphans(), 1);
        return stream.createGroup(GROUP).thenMany(Flux.merge(fresh, orphaned));
    }

    @Override
    protected String description() {
        return "Slot-event consumer " + consumer + " (" + QueueKeys.SLOT_EVENTS + ", group " + GROUP + ")";
    }

    /** Claims and handles events idle longer than claimIdle in other consumers' pending lists. */
    public Mono<Long> claimOrphans() {
        return stream.takeOver(GROUP, consumer, claimIdle, BATCH, Duration.ofHours(1))
                .concatMap(event -> handle(event.eventId(), event.productId()))
                .count()
                .onErrorResume(error -> {
                    log.warn("Claiming orphaned slot events failed; retrying next period: " + error);
                    return Mono.just(0L);
                });
    }

    private Mono<Long> handle(String eventId, String productId) {
        Mono<Long> promote = productId == null ? Mono.just(0L)
                : store.promote(productId, "").map(PromoteScript.Result::moved);
        // Acknowledge only after promoting: a crash in between leaves the event for another instance.
        return promote.flatMap(moved -> stream.acknowledge(GROUP, eventId).thenReturn(moved))
                .onErrorResume(error -> {
                    if (RedisFailures.isRedisFailure(error)) {
                        events.redisFailure(productId, RedisOperation.PROMOTION, error);
                    }
                    log.warn("Handling slot event " + eventId + " failed; it stays pending and will be claimed: "
                            + error);
                    return Mono.empty();
                });
    }
}
