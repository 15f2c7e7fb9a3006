package io.queuegate.store;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.queuegate.support.RedisProcess;
import io.queuegate.support.Scripts;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A script reaches a Redis that has never seen it by one {@code SCRIPT LOAD} before its first call
 * by SHA: no call is answered NOSCRIPT, none is sent with the script's whole text, and a Redis that
 * merely meets a script for the first time is not taken for one that lost its data (the epoch is
 * not read again). A Redis that did forget is noticed once, and each script is loaded again before
 * its next first call.
 */
class ScriptLoadingTest {

    private static final Pattern STAT = Pattern.compile("cmdstat_([^:]+):calls=(\\d+),.*failed_calls=(\\d+)");

    private RedisProcess redis;
    private Scripts scripts;
    private final AtomicInteger forgotten = new AtomicInteger();

    @BeforeEach
    void freshRedis() {
        redis = RedisProcess.start();
        scripts = Scripts.on(redis, countingEpoch());
    }

    /** The fixed epoch, counting how often Redis was found to have forgotten the scripts. */
    private ScriptEpoch countingEpoch() {
        ScriptEpoch fixed = ScriptEpoch.fixed(Scripts.EPOCH, false);
        return new ScriptEpoch() {
            @Override
            public Mono<String> argument() {
                return fixed.argument();
            }

            @Override
            public void forgotten() {
                forgotten.incrementAndGet();
            }
        };
    }

    @AfterEach
    void stop() {
        scripts.close();
        redis.close();
    }

    @Test
    void aScriptsFirstCallsGoBySha() {
        for (int i = 0; i < 3; i++) {
            scripts.status("42", "alice", 1_000 + i);
            scripts.peek("42", 10);
        }

        Map<String, long[]> stats = commandStats();
        assertThat(stats.get("evalsha")).as("six calls by SHA, none refused").containsExactly(6, 0);
        assertThat(stats).doesNotContainKey("eval");
        assertThat(scriptLoads(stats)).as("each script loaded once").containsExactly(2, 0);
        assertThat(forgotten).as("a first call is not a lost Redis").hasValue(0);
    }

    @Test
    void aRedisThatForgotTheScriptsIsNoticedOnceAndEachIsLoadedAgain() {
        scripts.status("42", "alice", 1_000);
        scripts.peek("42", 10);
        redis.commands().scriptFlush();
        redis.commands().configResetstat();

        for (int i = 0; i < 3; i++) {
            scripts.status("42", "alice", 2_000 + i);
        }
        scripts.peek("42", 10);

        Map<String, long[]> stats = commandStats();
        assertThat(forgotten).as("the NOSCRIPT answer is the loss signal, heard once").hasValue(1);
        // The call that found out is sent with its text (refused by SHA once more on the way, as
        // Spring's executor does); every later first call of a script loads it before.
        assertThat(stats.get("eval")).as("one call sent with its text").containsExactly(1, 0);
        assertThat(stats.get("evalsha")).as("two refused, then three by SHA").containsExactly(5, 2);
        assertThat(scriptLoads(stats)).as("both loaded again, each once").containsExactly(2, 0);
    }

    @Test
    void aRedisThatRefusesToLoadScriptsIsAskedOnceAWhileAndStillRunsThem() {
        scripts.close();
        redis.close();
        redis = RedisProcess.start(List.of("rename-command SCRIPT \"\""));
        scripts = Scripts.on(redis, countingEpoch());

        assertThat(scripts.status("42", "alice", 1_000).placement().state()).isNotNull();
        // Refused commands so far: the load, and what the client's handshake asks of an older Redis.
        long refused = refusedCommands();
        for (int i = 1; i <= 5; i++) {
            assertThat(scripts.status("42", "alice", 1_000 + i).placement().state()).isNotNull();
        }

        assertThat(refusedCommands()).as("no load tried again within the second").isEqualTo(refused);
        assertThat(commandStats().get("eval")).as("only the first call sent with its text").containsExactly(1, 0);
        assertThat(commandStats().get("evalsha")).as("two refused, then five by SHA").containsExactly(7, 2);
    }

    private long refusedCommands() {
        Matcher m = Pattern.compile("errorstat_ERR:count=(\\d+)").matcher(redis.commands().info("errorstats"));
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /** Redis 7 counts SCRIPT LOAD by itself; 6.2 (the bundled one) with the other SCRIPT commands. */
    private static long[] scriptLoads(Map<String, long[]> stats) {
        return stats.getOrDefault("script|load", stats.get("script"));
    }

    /** Calls and failed calls by command, since the Redis started or its statistics were reset. */
    private Map<String, long[]> commandStats() {
        Map<String, long[]> stats = new HashMap<>();
        Matcher m = STAT.matcher(redis.commands().info("commandstats"));
        while (m.find()) {
            stats.put(m.group(1), new long[] { Long.parseLong(m.group(2)), Long.parseLong(m.group(3)) });
        }
        return stats;
    }
}
