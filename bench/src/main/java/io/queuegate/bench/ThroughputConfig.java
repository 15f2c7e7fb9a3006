package io.queuegate.bench;

import java.net.SocketAddress;
import java.util.concurrent.atomic.LongAdder;

import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.queuegate.app.QueueGateApplication;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * Added to the runnable gateway by the throughput bench only ({@link #main}, in a JVM of its own):
 * a count of the commands the gateway's Lettuce client sends (client-side round trips; Redis's own
 * counters also count commands run inside scripts), read by the bench at
 * {@code GET /bench/redis-commands}.
 */
@Configuration(proxyBeanMethods = false)
public class ThroughputConfig {

    /** The runnable gateway with this configuration added; arguments as for the runnable gateway. */
    public static void main(String[] args) {
        new SpringApplicationBuilder(QueueGateApplication.class, ThroughputConfig.class).run(args);
    }

    /** Commands completed by the gateway's Redis client since start. */
    public static final LongAdder REDIS_COMMANDS = new LongAdder();

    @Bean
    RouterFunction<ServerResponse> benchRedisCommands() {
        return RouterFunctions.route(RequestPredicates.GET("/bench/redis-commands"),
                request -> ServerResponse.ok().bodyValue(Long.toString(REDIS_COMMANDS.sum())));
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
