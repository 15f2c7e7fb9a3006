package io.queuegate.app;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;

import redis.embedded.RedisServer;

/**
 * Starts {@link EmbeddedRedis} when {@code queuegate.redis.embedded=true} (the demo profile),
 * so the demo runs with nothing but a JDK. Never meant for production: it persists nothing.
 */
@AutoConfiguration(before = DataRedisAutoConfiguration.class)
@ConditionalOnClass(RedisServer.class)
@ConditionalOnProperty(name = "queuegate.redis.embedded", havingValue = "true")
public class EmbeddedRedisAutoConfiguration {

    @Bean
    EmbeddedRedis queuegateEmbeddedRedis() {
        return new EmbeddedRedis();
    }
}
