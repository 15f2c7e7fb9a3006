package io.queuegate.events;

import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * What ran a promotion, as metrics ({@code queuegate.admissions{trigger}}), the audit log
 * ({@code promotion ... trigger=...}, {@code abandoned ... trigger=...}) and listeners spell it:
 * the spellings are the contract and stay exactly as they were when triggers were strings. The
 * same holds for a decision's outcome ({@code queuegate.decision{outcome}}) and a Redis failure's
 * operation ({@code queuegate.redis.failures{operation}}, the audit log's {@code operation=}).
 */
class TriggerTest {

    @Test
    void everyTriggerKeepsItsSpelling() {
        Map<Trigger, String> spellings = Arrays.stream(Trigger.values())
                .collect(Collectors.toMap(trigger -> trigger, Trigger::value));
        assertThat(spellings).containsOnly(
                entry(Trigger.JOIN, "join"),
                entry(Trigger.LEAVE, "leave"),
                entry(Trigger.COMPLETION, "completion"),
                entry(Trigger.UNKNOWN_PRODUCT, "unknown"),
                entry(Trigger.EXPIRY, "expiry"),
                entry(Trigger.PROMOTE, "promote"),
                entry(Trigger.ADMIN, "admin"),
                entry(Trigger.RESTOCK, "restock"));
    }

    @Test
    void everyDecisionAndRedisOperationKeepsItsSpelling() {
        assertThat(Arrays.stream(Decision.values()).collect(Collectors.toMap(decision -> decision, Decision::value)))
                .containsOnly(entry(Decision.ACTIVE, "active"), entry(Decision.WAITING, "waiting"),
                        entry(Decision.REJECTED, "rejected"), entry(Decision.UNAVAILABLE, "unavailable"),
                        entry(Decision.UNCHECKED, "unchecked"));
        assertThat(Arrays.stream(RedisOperation.values())
                .collect(Collectors.toMap(operation -> operation, RedisOperation::value)))
                .containsOnly(entry(RedisOperation.ADMISSION, "admission"),
                        entry(RedisOperation.COMPLETION, "completion"), entry(RedisOperation.PROMOTION, "promotion"),
                        entry(RedisOperation.EXPIRY, "expiry"));
        assertThat(Decision.WAITING).hasToString("waiting");
        assertThat(RedisOperation.EXPIRY).hasToString("expiry");
    }

    @Test
    void printsAsItsSpelling() {
        for (Trigger trigger : Trigger.values()) {
            assertThat(trigger).hasToString(trigger.value());
            assertThat("trigger=" + trigger).isEqualTo("trigger=" + trigger.value());
        }
    }
}
