package io.queuegate.bench;

import io.lettuce.core.api.sync.RedisCommands;

/**
 * Redis's main-thread CPU time ({@code INFO cpu}: {@code used_cpu_user_main_thread} plus
 * {@code used_cpu_sys_main_thread}), the one core every command of a product's hash slot runs on:
 * what a request costs Redis, commands, scripts, parsing and network reads and writes included.
 */
final class RedisCpu {

    private final RedisCommands<String, String> redis;

    RedisCpu(RedisCommands<String, String> redis) {
        this.redis = redis;
    }

    /** Main-thread CPU seconds used so far. */
    double seconds() {
        double total = 0;
        int found = 0;
        for (String line : redis.info("cpu").split("\r?\n")) {
            if (line.startsWith("used_cpu_user_main_thread:") || line.startsWith("used_cpu_sys_main_thread:")) {
                total += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
                found++;
            }
        }
        if (found != 2) {
            throw new IllegalStateException("this Redis does not report its main thread's CPU (Redis 7 does): "
                    + redis.info("server").lines().filter(l -> l.startsWith("redis_version")).findFirst().orElse("?"));
        }
        return total;
    }
}
