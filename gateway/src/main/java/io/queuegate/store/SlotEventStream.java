package io.queuegate.store;

import java.time.Duration;
import java.util.Map;

import io.queuegate.store.script.StreamTakeoverScript;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.data.redis.connection.RedisStreamCommands.XAddOptions;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The slot-free events of {@code promotion: stream} ({@link QueueKeys#SLOT_EVENTS}): one stream
 * for all products, read by one consumer group of all instances, trimmed to about
 * {@code queuegate.stream.max-length} events.
 */
public final class SlotEventStream {

    private final ReactiveStringRedisTemplate redis;
    private final RedisGuard guard;
    private final QueueScripts scripts;
    private final long maxLength;

    public SlotEventStream(ReactiveStringRedisTemplate redis, RedisGuard guard, QueueScripts scripts, long maxLength) {
        this.redis = redis;
        this.guard = guard;
        this.scripts = scripts;
        this.maxLength = maxLength;
    }

    /** Appends a slot-free event for the product. */
    public Mono<Void> append(String productId) {
        MapRecord<String, String, String> event = StreamRecords.newRecord()
                .in(QueueKeys.SLOT_EVENTS)
                .ofMap(Map.of("pid", productId));
        return guard.guard(redis.opsForStream()
                .add(event, XAddOptions.maxlen(maxLength).approximateTrimming(true))).then();
    }

    /** Ensures the stream and its consumer group exist; an existing group is fine. */
    public Mono<Void> createGroup(String group) {
        return guard.guard(redis.opsForStream().createGroup(QueueKeys.SLOT_EVENTS, ReadOffset.from("0"), group)
                        .onErrorResume(error -> String.valueOf(NestedExceptionUtils.getMostSpecificCause(error)
                                .getMessage()).contains("BUSYGROUP"), error -> Mono.empty()))
                .then();
    }

    /** Takes over events idle longer than {@code minIdle} in other consumers' pending lists. */
    public Flux<StreamTakeoverScript.TakenOver> takeOver(String group, String consumer, Duration minIdle, int batch,
            Duration forgetConsumersAfter) {
        return scripts.streamTakeover().run(group, consumer, minIdle, batch, forgetConsumersAfter);
    }

    public Mono<Long> acknowledge(String group, String eventId) {
        return guard.guard(redis.opsForStream().acknowledge(QueueKeys.SLOT_EVENTS, group, eventId));
    }
}
