package io.queuegate.bench;

import java.net.SocketAddress;
import java.util.concurrent.atomic.LongAdder;

import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.protocol.ProtocolKeyword;

import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import reactor.core.publisher.Mono;

/**
 * Added to the gateway application by {@link Throughput} only: a constant key for the
 * {@code RequestRateLimiter} route, and a count of the commands the gateway's Lettuce client
 * sends (client-side round trips; Redis's own counters also count commands run inside scripts).
 */
@Configuration(proxyBeanMethods = false)
public class ThroughputConfig {

    /** Commands completed by the gateway's Redis client since start. */
    public static final LongAdder REDIS_COMMANDS = new LongAdder();

    @Bean
    KeyResolver benchKeyResolver() {
        return exchange -> Mono.just("bench");
    }

    @Bean
    ClientResourcesBuilderCustomizer benchCommandCounter() {
        return builder -> builder.commandLatencyRecorder(new CommandLatencyRecorder() {
            @Override
            public void recordCommandLatency(SocketAddress local, SocketAddress remote, ProtocolKeyword commandType,
                    long firstResponseLatency, long completionLatency) {
                REDIS_COMMANDS.increment();
            }
        });
    }
}
